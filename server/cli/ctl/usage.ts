/** `ctl usage`: sums for finance, and with `list` the recent rows. */
import { UsageError } from "../../../core/command.ts";
import { csv } from "../../csv.ts";
import { formatSpend, spendDecimal } from "../../accounting/money.ts";
import { at, col, type Ctx, ided, lookupNames, type Noun, printList, str } from "./client.ts";

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

async function summary(ctx: Ctx): Promise<number> {
  const values = ctx.values;
  const format = ctx.json ? "json" : typeof values.format === "string" ? values.format : "table";
  if (!["table", "csv", "json"].includes(format)) {
    throw new UsageError(`--format: expected table, csv or json, got "${format}"`);
  }
  const searchParams: Record<string, string> = {};
  for (const f of ["since", "until", "by"] as const) {
    if (typeof values[f] === "string") searchParams[f] = values[f] as string;
  }
  const s = await ctx.api.get("usage/summary", { searchParams }).json<SummaryJson>();
  const out = renderUsage(s, format as "table" | "csv" | "json");
  // CSV brings its own CRLF record ends: the last one's LF is the one console.log adds.
  console.log(format === "csv" ? out.slice(0, -1) : out);
  return 0;
}

export function renderUsage(s: SummaryJson, format: "table" | "csv" | "json"): string {
  if (format === "json") return JSON.stringify(s, null, 2);
  const head = [s.by, ...columns.map(snake), s.currency ? `cost_${s.currency}` : "cost"];
  if (format === "csv") {
    return csv([
      head,
      ...s.rows.map((r) => [
        String(r.group) || "-",
        ...columns.map((c) => Number(r[c] ?? 0)),
        spendDecimal(Number(r.costMicros ?? 0)),
      ]),
    ]);
  }
  const line = (group: string, r: Record<string, string | number>) => [
    group,
    ...columns.map((c) => String(r[c] ?? 0)),
    // As the portal shows it: the currency's sign, as many decimals as the amount has.
    s.currency
      ? formatSpend(Number(r.costMicros ?? 0), s.currency)
      : spendDecimal(Number(r.costMicros ?? 0)),
  ];
  const body = s.rows.map((r) => line(String(r.group) || "-", r));
  const cells = [head, ...body, line("TOTAL", s.total)];
  const widths = head.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  return `Usage ${s.since} .. ${s.until} (UTC days), by ${s.by}\n` +
    cells.map((r) =>
      r.map((c, i) => i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))
        .join("  ")
    ).join("\n");
}

function snake(s: string): string {
  return s.replace(/[A-Z]/g, (m) => "_" + m.toLowerCase());
}

/** `currency`: absent from a server before money was shown one way. */
type UsageRows = { data: Record<string, unknown>[]; currency?: string };

/** In a table, a prompt count the gateway estimated (the engine reported none) reads `~N`. */
function markEstimate(row: Record<string, unknown>): Record<string, unknown> {
  return row.promptEstimated ? { ...row, promptTokens: `~${row.promptTokens}` } : row;
}

export const usage: Noun = {
  name: "usage",
  bare: {
    help:
      `  usage [--since DAY] [--until DAY] [--by key|project|team|model|day] [--format table|csv|json]
                                              Usage sums for finance (default: this month, by model)`,
    flags: {
      since: { type: "string" },
      until: { type: "string" },
      by: { type: "string" },
      format: { type: "string" },
    },
    run: summary,
  },
  verbs: {
    list: {
      help: `  usage list [--limit N]                      Recent usage rows`,
      flags: { limit: { type: "string" } },
      run: async (ctx) => {
        const limit = str(ctx.values, "limit") ?? "20";
        const res = await ctx.api.get("usage", { searchParams: { limit } }).json<UsageRows>();
        if (ctx.json) return printList(true, res, []);
        const spend = (v: unknown) =>
          res.currency ? formatSpend(Number(v ?? 0), res.currency) : spendDecimal(Number(v ?? 0));
        const names = await lookupNames(ctx.api, ["keys"]);
        return printList(false, { data: res.data.map(markEstimate) }, [
          at("at", "When"),
          ided("keyId", "Key", names),
          col("model", "Model"),
          col("promptTokens", "Prompt tokens"),
          col("completionTokens", "Completion tokens"),
          { key: "costMicros", head: "Cost", show: spend },
          col("status", "Status"),
          col("latencyMs", "Latency ms"),
        ]);
      },
    },
  },
};
