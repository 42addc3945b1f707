/**
 * `llmgw ctl usage …`, `ctl config …` and `ctl backup …`: the operator's commands over the admin
 * API. Kept apart from ctl.ts so each area stays small.
 */
import type { KyInstance } from "ky";
import { UsageError } from "../../core/command.ts";
import { parse as parseYaml } from "yaml";
import type { SettingView } from "../settings/cluster_settings.ts";

export const opsHelp =
  `  usage [--since DAY] [--until DAY] [--by key|project|team|model|day] [--format table|csv|json]
                                              Usage sums for finance (default: this month, by model)
  backup FILE                                 A consistent copy of the store, taken while serving,
                                              written to FILE here (mode 0600); 'llmgw restore' puts it back
  config get [KEY]                            The cluster's settings (value, live or restart, source)
  config set KEY VALUE [KEY VALUE …]          Change settings; live ones apply at once
  config edit                                 Edit every setting as YAML in $EDITOR, then apply the changes
  notify test                                 Send a test notification to each webhook; show each answer`;

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
  /** The ISO code the costs are in (older servers send none). */
  currency?: string;
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
  const head = [s.by, ...columns.map(snake), s.currency ? `cost_${s.currency}` : "cost"];
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

/** A setting as `GET /settings` lists it; the CLI does not show its flag and env names. */
type SettingJson = Omit<SettingView, "env" | "flag">;

interface SetJson {
  applied: string[];
  restart: string[];
  overridden: string[];
}

export async function ctlConfig(
  api: KyInstance,
  args: string[],
  json: boolean,
): Promise<number> {
  const [verb, ...rest] = args;
  if (verb === "get") {
    const { data } = await api.get("settings").json<{ data: SettingJson[] }>();
    const rows = rest[0] ? data.filter((s) => s.key === rest[0]) : data;
    if (rest[0] && rows.length === 0) throw new UsageError(`unknown setting ${rest[0]}`);
    if (json) console.log(JSON.stringify(rest[0] ? rows[0] : rows, null, 2));
    else if (rest[0]) {
      console.log(
        typeof rows[0]!.value === "string" ? rows[0]!.value : JSON.stringify(rows[0]!.value),
      );
    } else {
      const cells = [
        ["KEY", "VALUE", "APPLIES", "SOURCE"],
        ...rows.map((s) => [
          s.key,
          JSON.stringify(s.value),
          s.live ? "live" : "restart",
          s.source,
        ]),
      ];
      const w = [0, 1, 2].map((i) => Math.max(...cells.map((r) => r[i]!.length)));
      for (const r of cells) console.log(r.map((c, i) => i < 3 ? c.padEnd(w[i]!) : c).join("  "));
    }
    return 0;
  }
  if (verb === "set") {
    if (rest.length === 0 || rest.length % 2 !== 0) {
      throw new UsageError("config set needs KEY VALUE pairs");
    }
    const changes: Record<string, string> = {};
    for (let i = 0; i < rest.length; i += 2) changes[rest[i]!] = rest[i + 1]!;
    return report(await api.put("settings", { json: changes }).json<SetJson>(), json);
  }
  if (verb === "edit") {
    const { data } = await api.get("settings").json<{ data: SettingJson[] }>();
    const file = await Deno.makeTempFile({ prefix: "llmgw-settings-", suffix: ".yaml" });
    try {
      await Deno.writeTextFile(file, settingsYaml(data));
      const editor = Deno.env.get("VISUAL") || Deno.env.get("EDITOR") || "vi";
      const run = await new Deno.Command("sh", {
        args: ["-c", `${editor} "$1"`, "sh", file],
        stdin: "inherit",
        stdout: "inherit",
        stderr: "inherit",
      }).output();
      if (!run.success) throw new UsageError(`the editor (${editor}) failed; nothing changed`);
      let doc: unknown;
      try {
        doc = parseYaml(await Deno.readTextFile(file));
      } catch (e) {
        throw new UsageError(
          `not valid YAML, nothing changed: ${(e as Error).message.split("\n")[0]}`,
        );
      }
      const edited = flatten(doc);
      const changes: Record<string, unknown> = {};
      for (const s of data) {
        if (s.key in edited && JSON.stringify(edited[s.key]) !== JSON.stringify(s.value)) {
          changes[s.key] = edited[s.key];
        }
      }
      for (const k of Object.keys(edited)) {
        if (!data.some((s) => s.key === k)) {
          throw new UsageError(`unknown setting ${k}; nothing changed`);
        }
      }
      if (Object.keys(changes).length === 0) {
        console.log("No changes.");
        return 0;
      }
      return report(await api.put("settings", { json: changes }).json<SetJson>(), json);
    } finally {
      await Deno.remove(file).catch(() => {});
    }
  }
  throw new UsageError("config takes get [KEY], set KEY VALUE …, or edit");
}

function report(r: SetJson, json: boolean): number {
  if (json) console.log(JSON.stringify(r, null, 2));
  else {
    if (r.applied.length) console.log(`Applied now: ${r.applied.join(", ")}`);
    if (r.restart.length) console.log(`Stored; applies after a restart: ${r.restart.join(", ")}`);
    if (r.overridden.length) {
      console.log(
        `Stored, but this control plane was started with a flag or env for: ${
          r.overridden.join(", ")
        }`,
      );
    }
  }
  return 0;
}

/** Every setting as YAML, grouped by section, each with its meaning and whether it is live. */
export function settingsYaml(data: SettingJson[]): string {
  const sections = new Map<string, string[]>();
  for (const s of data) {
    const parts = s.key.split(".");
    const head = parts.length > 1 ? parts[0]! : "";
    let lines = sections.get(head);
    if (!lines) sections.set(head, lines = head ? [`${head}:`] : []);
    const indent = head ? "  " : "";
    lines.push(`${indent}# ${s.description} [${s.live ? "live" : "restart"}]`);
    lines.push(`${indent}${parts.slice(head ? 1 : 0).join(".")}: ${JSON.stringify(s.value)}`);
  }
  return "# The cluster's settings. Change values and save; [live] ones apply at once.\n" +
    [...sections.values()].flat().join("\n") + "\n";
}

function flatten(doc: unknown, prefix = "", out: Record<string, unknown> = {}) {
  if (doc === null || doc === undefined) return out;
  if (typeof doc !== "object" || Array.isArray(doc)) {
    throw new UsageError(`${prefix || "the top level"} must be a mapping; nothing changed`);
  }
  for (const [k, v] of Object.entries(doc)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (typeof v === "object" && v !== null && !Array.isArray(v)) flatten(v, key, out);
    else out[key] = v;
  }
  return out;
}

export async function ctlNotifyTest(api: KyInstance, json: boolean): Promise<number> {
  const { data } = await api.post("notify/test").json<
    { data: { url: string; ok: boolean; detail: string }[] }
  >();
  if (json) console.log(JSON.stringify(data, null, 2));
  else if (data.length === 0) console.log("No webhooks are set (notify.webhooks).");
  else for (const r of data) console.log(`${r.ok ? "ok    " : "FAILED"}  ${r.url}  ${r.detail}`);
  return data.every((r) => r.ok) ? 0 : 1;
}
