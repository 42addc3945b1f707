/** `ctl limits`: limits and budgets at any level; partial unless --replace. */
import { UsageError } from "../../../core/command.ts";
import { cellText } from "../table.ts";
import {
  type Ctx,
  duration,
  type FlagSpecs,
  type Noun,
  printOne,
  str,
  type Values,
} from "./client.ts";

const levels = ["org", "team", "project", "person", "key"] as const;

function scopePath(v: Values): string {
  if (v.global === true) return "limits/global/global";
  const given = levels.filter((l) => str(v, l) !== undefined);
  if (given.length !== 1) {
    throw new UsageError(
      "name exactly one level: --global, --org ID, --team ID, --project ID, --person ID or --key ID",
    );
  }
  return `limits/${given[0]}/${encodeURIComponent(str(v, given[0]!)!)}`;
}

/** A number, or `none` to clear the level's own value back to inherited. */
function num(v: Values, flag: string): number | null | undefined {
  const s = str(v, flag);
  if (s === undefined) return undefined;
  if (s === "none" || s === "inherit") return null;
  const n = Number(s.replaceAll("_", ""));
  if (!Number.isInteger(n) || n < 0) {
    throw new UsageError(`--${flag} must be a whole number or 'none'`);
  }
  return n;
}

/** `on`, `off`, or `none` to inherit. */
function onOff(v: Values, flag: string): boolean | null | undefined {
  const s = str(v, flag);
  if (s === undefined) return undefined;
  if (s === "none" || s === "inherit") return null;
  if (s === "on" || s === "off") return s === "on";
  throw new UsageError(`--${flag} must be on, off or none`);
}

/** A similarity in (0, 1], or `none`. */
function similarity(v: Values, flag: string): number | null | undefined {
  const s = str(v, flag);
  if (s === undefined) return undefined;
  if (s === "none" || s === "inherit") return null;
  const n = Number(s);
  if (!(n > 0 && n <= 1)) throw new UsageError(`--${flag} must be a number in (0, 1] or 'none'`);
  return n;
}

function body(v: Values): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const put = (field: string, value: unknown) => value !== undefined && (out[field] = value);
  put("rpm", num(v, "rpm"));
  put("tpm", num(v, "tpm"));
  put("budget_day_micros", num(v, "budget-day"));
  put("budget_month_micros", num(v, "budget-month"));
  put("budget_day_tokens", num(v, "budget-day-tokens"));
  put("budget_month_tokens", num(v, "budget-month-tokens"));
  put("max_parallel", num(v, "max-parallel"));
  put("weight", num(v, "weight"));
  put("cache", onOff(v, "cache"));
  put("cache_temperature", onOff(v, "cache-temperature"));
  put("cache_similar", similarity(v, "cache-similar"));
  const models = str(v, "models");
  if (models !== undefined) {
    out.models = models === "none" ? null : models.split(",").map((m) => m.trim()).filter(Boolean);
  }
  const tools = str(v, "tools");
  if (tools !== undefined) {
    out.tools = tools === "none" ? null : tools.split(",").map((t) => t.trim()).filter(Boolean);
  }
  const ttl = str(v, "max-key-ttl");
  if (ttl !== undefined) out.max_key_ttl_ms = ttl === "none" ? null : duration(ttl, "max-key-ttl");
  return out;
}

function describe(res: Record<string, unknown>): string {
  const own = res.limits as Record<string, unknown>;
  const eff = res.effective as Record<string, { value: number; scope: { kind: string } } | null>;
  const lines = Object.entries(own).map(([k, v]) => {
    const e = eff[k];
    const effective = k === "models" || k === "tools"
      ? ""
      : e
      ? `  (effective ${e.value}, set at ${e.scope.kind})`
      : "";
    return `  ${k.padEnd(18)} ${v === null ? "inherit" : cellText(v)}${effective}`;
  });
  return lines.join("\n");
}

async function set(ctx: Ctx): Promise<number> {
  const replace = ctx.values.replace === true;
  const json = body(ctx.values);
  if (!replace && Object.keys(json).length === 0) {
    throw new UsageError("limits set needs at least one limit, or --replace");
  }
  const res = await ctx.api(scopePath(ctx.values), { method: replace ? "put" : "patch", json })
    .json<Record<string, unknown>>();
  return printOne(ctx.json, res, describe(res));
}

/** The flags that name a level. */
const levelFlags: FlagSpecs = {
  global: { type: "boolean" },
  ...Object.fromEntries(levels.map((l) => [l, { type: "string" as const }])),
};

const limitFlags: FlagSpecs = Object.fromEntries(
  [
    "rpm",
    "tpm",
    "budget-day",
    "budget-month",
    "budget-day-tokens",
    "budget-month-tokens",
    "models",
    "tools",
    "max-key-ttl",
    "max-parallel",
    "weight",
    "cache",
    "cache-temperature",
    "cache-similar",
  ].map((f) => [f, { type: "string" as const }]),
);

export const limits: Noun = {
  name: "limits",
  verbs: {
    show: {
      help:
        `  limits show LEVEL                           A level's own limits and the effective ones`,
      flags: levelFlags,
      run: async (ctx) => {
        const res = await ctx.api.get(scopePath(ctx.values)).json<Record<string, unknown>>();
        return printOne(ctx.json, res, describe(res));
      },
    },
    set: {
      help: `  limits set LEVEL [--rpm N] [--tpm N] [--budget-day MICROS] [--budget-month MICROS]
             [--budget-day-tokens N] [--budget-month-tokens N] [--models 'glob,glob']
             [--tools 'jira.*,llmgw.*'] (MCP tools granted; levels add up)
             [--max-key-ttl 90d] [--max-parallel N] [--weight N] [--replace]
             [--cache on|off] [--cache-temperature on|off] [--cache-similar 0.95]
                                              Change only what is given ('none' clears one);
                                              --replace writes the whole set. --max-parallel:
                                              requests in flight per model at this level;
                                              --weight: a project's share of a busy model (1);
                                              --cache: answers reused (the nearest level set
                                              decides); --cache-temperature: temperature > 0
                                              too; --cache-similar: similar questions too`,
      flags: { ...levelFlags, ...limitFlags, replace: { type: "boolean" } },
      run: set,
    },
  },
  note: `  LEVEL: --global | --org ID | --team ID | --project ID | --person ID | --key ID`,
};
