/**
 * Settings: every knob has one definition that gives its YAML path, its flag, its environment
 * variable, its default and a one-line description (which is also its `--help` text). They are
 * resolved once, at start, into a plain typed object: flag over environment over file over default.
 */
import { parse as parseYaml } from "yaml";
import { z } from "zod";

export interface Setting<T> {
  /** Dotted path in the YAML file, e.g. `router.max_body_bytes`. */
  readonly key: string;
  /** Long flag name without dashes. */
  readonly flag: string;
  readonly env: string;
  readonly description: string;
  readonly default: T;
  /** Accepts both YAML values and the strings that flags and environment variables carry. */
  readonly schema: z.ZodType<T>;
  /** Hidden from `--help` output and echo, e.g. tokens. */
  readonly secret?: boolean;
  /**
   * Applies without a restart when changed in the cluster's settings (`ctl config set`); false
   * means it is read once at start. Mark one live with `live(…)` only where a change is applied.
   */
  readonly live: boolean;
  /** What the value is, for the reference: `string`, `integer`, `number`, `boolean`, `a | b`. */
  readonly type: string;
}

/** Marks a setting as applied without a restart. */
export function live<T>(s: Setting<T>): Setting<T> {
  return { ...s, live: true };
}

// deno-lint-ignore no-explicit-any
export type SettingDefs = Record<string, Setting<any>>;
export type Resolved<D extends SettingDefs> = { [K in keyof D]: D[K]["default"] };

export class ConfigError extends Error {
  override name = "ConfigError";
}

/** A setting whose value is text. */
export function text(
  key: string,
  def: string,
  description: string,
  extra: Partial<Pick<Setting<string>, "flag" | "env" | "secret">> = {},
): Setting<string> {
  return make(key, def, description, z.string(), "string", extra);
}

/** A setting whose value is text of a given form (`what` names it in the error and the reference). */
export function textMatching(
  key: string,
  def: string,
  description: string,
  form: { pattern: RegExp; what: string },
  extra: Partial<Pick<Setting<string>, "flag" | "env" | "secret">> = {},
): Setting<string> {
  const schema = z.string().regex(form.pattern, `must be ${form.what}`);
  return make(key, def, description, schema, `string (${form.what})`, extra);
}

/** A setting whose value is a whole number within bounds. */
export function int(
  key: string,
  def: number,
  description: string,
  bounds: { min?: number; max?: number } = {},
): Setting<number> {
  let schema = z.coerce.number().int();
  if (bounds.min !== undefined) schema = schema.min(bounds.min);
  if (bounds.max !== undefined) schema = schema.max(bounds.max);
  const range = bounds.min !== undefined || bounds.max !== undefined
    ? ` (${bounds.min ?? "…"}–${bounds.max ?? "…"})`
    : "";
  return make(key, def, description, schema as z.ZodType<number>, `integer${range}`);
}

/** A setting whose value is a number (not necessarily whole). */
export function num(key: string, def: number, description: string): Setting<number> {
  return make(
    key,
    def,
    description,
    z.coerce.number().positive() as z.ZodType<number>,
    "number (> 0)",
  );
}

const booleanWords: Record<string, boolean> = {
  true: true,
  false: false,
  "1": true,
  "0": false,
  yes: true,
  no: false,
  on: true,
  off: false,
};

/** A setting that is on or off; flags and env accept true/false/1/0/yes/no/on/off. */
export function bool(key: string, def: boolean, description: string): Setting<boolean> {
  const schema = z.union([
    z.boolean(),
    z.string().transform((s, ctx) => {
      const v = booleanWords[s.toLowerCase()];
      if (v === undefined) {
        ctx.addIssue({ code: "custom", message: "expected true or false" });
        return z.NEVER;
      }
      return v;
    }),
  ]);
  return make(key, def, description, schema, "boolean");
}

/** A setting whose value is one of a closed list. */
export function oneOf<const T extends readonly [string, ...string[]]>(
  key: string,
  values: T,
  def: T[number],
  description: string,
): Setting<T[number]> {
  return make(
    key,
    def,
    description,
    z.enum(values) as unknown as z.ZodType<T[number]>,
    values.join(" | "),
  );
}

function make<T>(
  key: string,
  def: T,
  description: string,
  schema: z.ZodType<T>,
  type: string,
  extra: Partial<Pick<Setting<T>, "flag" | "env" | "secret">> = {},
): Setting<T> {
  const dashed = key.replaceAll("_", "-").replaceAll(".", "-");
  return {
    key,
    flag: extra.flag ?? dashed,
    env: extra.env ?? `LLMGW_${key.replaceAll(".", "_").toUpperCase()}`,
    description,
    default: def,
    schema,
    live: false,
    type,
    ...(extra.secret ? { secret: true } : {}),
  };
}

export interface ResolveSources {
  /** Values from parsed flags, keyed by flag name; absent flags are undefined. */
  flags?: Record<string, string | boolean | undefined>;
  env?: Record<string, string | undefined>;
  /** The YAML text of the config file, if there is one. */
  yaml?: { path: string; text: string };
}

/** Resolve every setting; refuses unknown YAML keys and wrong types with the key's path. */
export function resolveSettings<D extends SettingDefs>(defs: D, src: ResolveSources): Resolved<D> {
  const fileValues = src.yaml ? readYaml(defs, src.yaml) : new Map<string, unknown>();
  const out: Record<string, unknown> = {};
  for (const [name, def] of Object.entries(defs)) {
    const fromFlag = src.flags?.[def.flag];
    const fromEnv = src.env?.[def.env];
    let raw: unknown;
    let origin: string;
    if (fromFlag !== undefined) [raw, origin] = [fromFlag, `flag --${def.flag}`];
    else if (fromEnv !== undefined && fromEnv !== "") [raw, origin] = [fromEnv, `env ${def.env}`];
    else if (fileValues.has(def.key)) {
      [raw, origin] = [fileValues.get(def.key), `${src.yaml?.path}: ${def.key}`];
    } else {
      out[name] = def.default;
      continue;
    }
    const parsed = def.schema.safeParse(raw);
    if (!parsed.success) {
      const why = parsed.error.issues.map((i) => i.message).join("; ");
      throw new ConfigError(`Invalid setting ${def.key} (${origin}): ${why}`);
    }
    out[name] = parsed.data;
  }
  return out as Resolved<D>;
}

/** Names of the settings a file sets, given or not by a flag or the environment too. */
export function fromFile(defs: SettingDefs, yaml: { path: string; text: string }): Set<string> {
  const set = readYaml(defs, yaml);
  return new Set(Object.entries(defs).filter(([, d]) => set.has(d.key)).map(([name]) => name));
}

/** Names of the settings given by a flag or the environment (they beat the file and the store). */
export function fromFlagsOrEnv(defs: SettingDefs, src: ResolveSources): Set<string> {
  const out = new Set<string>();
  for (const [name, def] of Object.entries(defs)) {
    const env = src.env?.[def.env];
    if (src.flags?.[def.flag] !== undefined || (env !== undefined && env !== "")) out.add(name);
  }
  return out;
}

function readYaml(defs: SettingDefs, file: { path: string; text: string }): Map<string, unknown> {
  let doc: unknown;
  try {
    doc = parseYaml(file.text);
  } catch (e) {
    throw new ConfigError(`Cannot read ${file.path}: ${(e as Error).message.split("\n")[0]}`);
  }
  const values = new Map<string, unknown>();
  if (doc === null || doc === undefined) return values;
  const known = new Set(Object.values(defs).map((d) => d.key));
  const prefixes = new Set([...known].flatMap((k) => {
    const parts = k.split(".");
    return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join("."));
  }));
  const walk = (node: unknown, path: string) => {
    if (typeof node !== "object" || node === null || Array.isArray(node)) {
      throw new ConfigError(`Invalid ${file.path}: ${path || "the top level"} must be a mapping`);
    }
    for (const [k, v] of Object.entries(node)) {
      const full = path ? `${path}.${k}` : k;
      if (known.has(full)) values.set(full, v);
      else if (prefixes.has(full)) walk(v, full);
      else throw new ConfigError(`Unknown setting in ${file.path}: ${full}`);
    }
  };
  walk(doc, "");
  return values;
}

/** `--help` text for a list of settings: flag, env, default and description, one per line. */
export function settingsHelp(defs: SettingDefs): string {
  return Object.values(defs).map((d) => {
    const shown = d.secret ? "(secret)" : JSON.stringify(d.default);
    return `  --${d.flag.padEnd(26)} ${d.description}\n  ${
      "".padEnd(28)
    } env ${d.env}, default ${shown}`;
  }).join("\n");
}

/** Options for `node:util` parseArgs, derived from the settings so flags and help never drift. */
export function parseArgsOptions(defs: SettingDefs): Record<string, { type: "string" }> {
  return Object.fromEntries(Object.values(defs).map((d) => [d.flag, { type: "string" as const }]));
}

/** A YAML document that lists every setting at its default, with its description as a comment. */
export function defaultYaml(defs: SettingDefs, values: Record<string, unknown> = {}): string {
  // Grouped by section in order of first appearance: a section listed twice is invalid YAML.
  const sections = new Map<string, string[]>();
  for (const [name, d] of Object.entries(defs)) {
    if (d.secret) continue;
    const parts = d.key.split(".");
    const head = parts.length > 1 ? parts[0]! : "";
    let lines = sections.get(head);
    if (!lines) sections.set(head, lines = head ? [`${head}:`] : []);
    const indent = head ? "  " : "";
    const value = name in values ? values[name] : d.default;
    lines.push(`${indent}# ${d.description}`);
    // A deeper key (`auth.ldap.urls`) stays dotted under its section; the reader takes either form.
    lines.push(`${indent}${head ? parts.slice(1).join(".") : d.key}: ${JSON.stringify(value)}`);
  }
  return [...sections.values()].flat().join("\n") + "\n";
}
