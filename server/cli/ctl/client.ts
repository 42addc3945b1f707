/** What every `ctl` noun shares: the connection to the admin API, flag readers and printing. */
import ky, { type KyInstance } from "ky";
import { UsageError } from "../../../core/command.ts";
import { resolveSettings, text } from "../../../core/settings.ts";
import { loadServerConfig, locationSettings, parseListen } from "../../config.ts";

export const ctlSettings = {
  url: text("ctl.url", "", "Control plane URL (default: from DATA/server.yaml)", {
    flag: "url",
    env: "LLMGW_URL",
  }),
  token: text("ctl.token", "", "Admin token (default: DATA/admin.token)", {
    flag: "token",
    env: "LLMGW_ADMIN_TOKEN",
    secret: true,
  }),
};

export type Values = Record<string, string | boolean | undefined>;

export interface Ctx {
  api: KyInstance;
  json: boolean;
  values: Values;
  /** Positionals after the noun and the verb. */
  args: string[];
}

/** A flag as node:util's parseArgs takes it. */
export type FlagSpecs = Record<string, { type: "string" | "boolean"; short?: string }>;

export interface Verb {
  /** Its lines in `ctl --help`; absent where a sibling's line names it too (`cordon|uncordon`). */
  help?: string;
  /** The flags it reads. `ctl` parses every verb's flags on every command, as it always has. */
  flags?: FlagSpecs;
  run(ctx: Ctx): Promise<number>;
}

/** `ctl NOUN VERB ARGS…`: a table of verbs; `ctl NOUN` alone runs `list`, or `bare`. */
export interface Noun {
  name: string;
  verbs: Record<string, Verb>;
  /**
   * What `ctl NOUN` alone runs instead of `list`. A noun with no verbs runs it whatever follows,
   * every word after the noun an argument (`ctl backup FILE`).
   */
  bare?: Verb;
  /** Lines after its verbs' in `ctl --help` (what a LEVEL is, the roles). */
  note?: string;
}

export async function connect(values: Values): Promise<KyInstance> {
  const env = Deno.env.toObject();
  const { dataDir } = resolveSettings(locationSettings, { flags: values, env });
  let { url, token } = resolveSettings(ctlSettings, { flags: values, env });
  if (!url) {
    const { hostname, port } = parseListen(
      (await loadServerConfig({ flags: {}, env: { LLMGW_DATA: dataDir } })).listen,
    );
    url = `http://${hostname === "0.0.0.0" ? "127.0.0.1" : hostname}:${port}`;
  }
  if (!token) {
    try {
      token = (await Deno.readTextFile(`${dataDir}/admin.token`)).trim();
    } catch {
      throw new UsageError(
        `no admin token: pass --token, set LLMGW_ADMIN_TOKEN, or point --data at a data directory`,
      );
    }
  }
  return ky.create({
    prefix: `${url.replace(/\/$/, "")}/api/v1/`,
    headers: { authorization: `Bearer ${token}` },
    retry: 0,
  });
}

export function str(values: Values, flag: string): string | undefined {
  const v = values[flag];
  return typeof v === "string" ? v : undefined;
}

export function need(values: Values, flag: string, what: string): string {
  const v = str(values, flag);
  if (v === undefined) throw new UsageError(`${what} needs --${flag}`);
  return v;
}

export function arg(ctx: Ctx, i: number, what: string): string {
  const v = ctx.args[i];
  if (!v) throw new UsageError(`${what}`);
  return v;
}

/** `90d`, `12h`, `30m`, `45s` or plain milliseconds. */
export function duration(text: string, flag: string): number {
  const m = /^(\d+)(ms|s|m|h|d)?$/.exec(text.trim());
  if (!m) throw new UsageError(`--${flag} must be a duration like 90d, 12h, 30m or milliseconds`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] ?? "ms"]!;
  return Number(m[1]) * unit;
}

/** A time: ISO 8601, milliseconds since 1970, or an age such as `1h` (that long ago). */
export function since(text: string): number {
  if (/^\d{12,}$/.test(text)) return Number(text);
  if (/^\d+(ms|s|m|h|d)$/.test(text)) return Date.now() - duration(text, "since");
  const t = Date.parse(text);
  if (Number.isNaN(t)) {
    throw new UsageError(`--since must be a date, milliseconds, or an age like 1h`);
  }
  return t;
}

export function printOne(json: boolean, value: unknown, line: string): number {
  console.log(json ? JSON.stringify(value, null, 2) : line);
  return 0;
}

export function printList(json: boolean, res: unknown, columns: string[]): number {
  const rows = (res as { data: Record<string, unknown>[] }).data;
  if (json) {
    console.log(JSON.stringify(rows, null, 2));
    return 0;
  }
  const cell = (v: unknown) =>
    v === null || v === undefined ? "-" : typeof v === "object" ? JSON.stringify(v) : String(v);
  const cells = [columns, ...rows.map((r) => columns.map((c) => cell(r[c])))];
  const widths = columns.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  for (const r of cells) console.log(r.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd());
  return 0;
}
