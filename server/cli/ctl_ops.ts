/**
 * `llmgw ctl usage …`, `ctl config …` and `ctl backup …`: the operator's commands over the admin
 * API. Kept apart from ctl.ts so each area stays small.
 */
import type { KyInstance } from "ky";
import { UsageError } from "../../core/command.ts";

export const opsHelp =
  `  usage [--since DAY] [--until DAY] [--by key|project|team|model|day] [--format table|csv|json]
                                              Usage sums for finance (default: this month, by model)
  backup FILE                                 A consistent copy of the store, taken while serving,
                                              written to FILE here (mode 0600); 'llmgw restore' puts it back`;

export const opsFlags = {
  since: { type: "string" },
  until: { type: "string" },
  by: { type: "string" },
  format: { type: "string" },
} as const;

type Values = Record<string, string | boolean | undefined>;

interface SummaryJson {
  since: string;
  until: string;
  by: string;
  rows: Record<string, string | number>[];
  total: Record<string, number>;
}

const columns = [
  "requests",
  "errors",
  "promptTokens",
  "cachedTokens",
  "completionTokens",
  "costMicros",
] as const;

export async function ctlUsage(api: KyInstance, values: Values, json: boolean): Promise<number> {
  const format = json ? "json" : typeof values.format === "string" ? values.format : "table";
  if (!["table", "csv", "json"].includes(format)) {
    throw new UsageError(`--format: expected table, csv or json, got "${format}"`);
  }
  const searchParams: Record<string, string> = {};
  for (const f of ["since", "until", "by"] as const) {
    if (typeof values[f] === "string") searchParams[f] = values[f] as string;
  }
  const s = await api.get("usage/summary", { searchParams }).json<SummaryJson>();
  console.log(renderUsage(s, format as "table" | "csv" | "json"));
  return 0;
}

export function renderUsage(s: SummaryJson, format: "table" | "csv" | "json"): string {
  if (format === "json") return JSON.stringify(s, null, 2);
  const head = [s.by, ...columns.map(snake), "cost"];
  const line = (group: string, r: Record<string, string | number>) => [
    group,
    ...columns.map((c) => String(r[c] ?? 0)),
    money(Number(r.costMicros ?? 0)),
  ];
  const body = s.rows.map((r) => line(String(r.group) || "-", r));
  if (format === "csv") {
    return [head, ...body].map((r) => r.map(csvCell).join(",")).join("\n");
  }
  const cells = [head, ...body, line("TOTAL", s.total)];
  const widths = head.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  return `Usage ${s.since} .. ${s.until} (UTC days), by ${s.by}\n` +
    cells.map((r) =>
      r.map((c, i) => i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))
        .join("  ")
    ).join("\n");
}

/** Micro-units as currency units with six decimals: exact, no float rounding. */
function money(micros: number): string {
  const sign = micros < 0 ? "-" : "";
  const a = Math.abs(micros);
  return `${sign}${Math.floor(a / 1_000_000)}.${String(a % 1_000_000).padStart(6, "0")}`;
}

export async function ctlBackup(api: KyInstance, file: string | undefined): Promise<number> {
  if (!file) throw new UsageError("backup needs a FILE to write");
  try {
    await Deno.lstat(file);
    throw new UsageError(`${file} exists; give a new file name`);
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  const started = performance.now();
  const res = await api.post("backup", { timeout: false });
  const tmp = `${file}.partial`;
  const out = await Deno.open(tmp, { write: true, createNew: true, mode: 0o600 });
  try {
    await res.body!.pipeTo(out.writable);
  } catch (e) {
    await Deno.remove(tmp).catch(() => {});
    throw e;
  }
  const expected = Number(res.headers.get("content-length"));
  const size = (await Deno.stat(tmp)).size;
  if (expected && size !== expected) {
    await Deno.remove(tmp);
    throw new UsageError(`backup cut short (${size} of ${expected} bytes); nothing written`);
  }
  await Deno.rename(tmp, file);
  console.log(
    `Backup written to ${file} (${size} bytes, ${Math.round(performance.now() - started)} ms). ` +
      `Restore with: llmgw restore ${file} --data DIR (control plane stopped)`,
  );
  return 0;
}

function snake(s: string): string {
  return s.replace(/[A-Z]/g, (m) => "_" + m.toLowerCase());
}

function csvCell(s: string): string {
  return /[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}
