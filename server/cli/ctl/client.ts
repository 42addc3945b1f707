/** What every `ctl` noun shares: the connection to the admin API, flag readers and printing. */
import ky, { type KyInstance } from "ky";
import { UsageError } from "../../../core/command.ts";
import { resolveSettings, text } from "../../../core/settings.ts";
import { loadServerConfig, locationSettings, parseListen } from "../../wiring/config.ts";
import { cellText, named, renderTable, when } from "../table.ts";

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

/** A flag declared `multiple` (given more than once) reads as a list. */
export type Values = Record<string, string | boolean | string[] | undefined>;

export interface Ctx {
  api: KyInstance;
  json: boolean;
  values: Values;
  /** Positionals after the noun and the verb. */
  args: string[];
}

/** A flag as node:util's parseArgs takes it. */
export type FlagSpecs = Record<
  string,
  { type: "string" | "boolean"; short?: string; multiple?: boolean }
>;

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
  // Settings are single-valued: the lists of `multiple` flags are no setting's.
  const flags = Object.fromEntries(
    Object.entries(values).filter((e): e is [string, string | boolean | undefined] =>
      !Array.isArray(e[1])
    ),
  );
  const { dataDir } = resolveSettings(locationSettings, { flags, env });
  let { url, token } = resolveSettings(ctlSettings, { flags, env });
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

/** Every value of a flag declared `multiple`, in the order given. */
export function strs(values: Values, flag: string): string[] {
  const v = values[flag];
  return Array.isArray(v) ? v : typeof v === "string" ? [v] : [];
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

/**
 * `90d`, `12h`, `30m`, `45s` or `500ms`. A number alone is refused with the units named: `3`
 * read as 3 ms would make a key that is dead before it is shown.
 */
export function duration(text: string, flag: string): number {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(text.trim());
  if (!m) {
    throw new UsageError(
      `--${flag} ${text}: give a number and a unit: d (days), h (hours), m (minutes), ` +
        `s (seconds) or ms, e.g. 30d or 12h`,
    );
  }
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2]!]!;
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

/** One column of a table for people: the row field it reads, its header in words, how it reads. */
export interface Column {
  key: string;
  head: string;
  show?: (value: unknown, row: Record<string, unknown>) => string;
}

/** A plain column. */
export const col = (key: string, head: string): Column => ({ key, head });
/** A time column (milliseconds since 1970): "3 min ago", or the local date further off. */
export const at = (key: string, head: string): Column => ({
  key,
  head,
  show: (v) => when(typeof v === "number" ? v : null),
});
/** An id column with the name people know beside it. */
export const ided = (key: string, head: string, names: ReadonlyMap<string, string>): Column => ({
  key,
  head,
  show: (v) => named(v, names),
});

/**
 * A list: with --json the API's rows exactly as they came; otherwise a table with worded
 * headers, times people read, and no JSON in a cell.
 */
export function printList(json: boolean, res: unknown, columns: Column[]): number {
  const rows = (res as { data: Record<string, unknown>[] }).data;
  if (json) {
    console.log(JSON.stringify(rows, null, 2));
    return 0;
  }
  console.log(renderTable(
    columns.map((c) => c.head),
    rows.map((r) => columns.map((c) => c.show ? c.show(r[c.key], r) : cellText(r[c.key]))),
  ));
  return 0;
}

/**
 * Names by id for the levels named (`projects`, `people`, `keys`, `teams`, `orgs`), so a table
 * can show "Research (prj_…)". A list this token may not read leaves its ids bare.
 */
export async function lookupNames(
  api: KyInstance,
  lists: readonly ("projects" | "people" | "keys" | "teams" | "orgs")[],
): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  await Promise.all(lists.map(async (list) => {
    const res = await api.get(list, { throwHttpErrors: false });
    if (!res.ok) return void await res.body?.cancel();
    const { data } = await res.json<{ data: Record<string, unknown>[] }>();
    for (const r of data) {
      const name = r.displayName || r.username || r.name;
      if (typeof r.id === "string" && typeof name === "string") names.set(r.id, name);
    }
  }));
  return names;
}
