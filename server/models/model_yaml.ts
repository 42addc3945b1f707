/**
 * Parsing model definitions from YAML text (`ctl model add -f FILE`) or from an already-parsed
 * value (`server.yaml`'s `models:` list, an admin API body). Every problem is reported with its
 * path (`models[1].profiles[0].gpu_count: unknown key`), all of them at once, as an
 * `AppError("invalid_request")` whose `param` is the first path.
 *
 * `parseModel(value, at?)` → ModelDef; `parseModelList(value, at = "models")` → ModelDef[] (names
 * and aliases unique across the list); `parseModelYaml(text)` → ModelDef[] (one mapping, or a
 * list, or a `models:` list).
 */
import { parse as parseYaml } from "yaml";
import type { z } from "zod";
import { AppError } from "../../core/errors.ts";
import { type ModelDef, modelInputSchema, toModelDef } from "./model_schema.ts";

type Path = PropertyKey[];

function join(base: string, path: Path): string {
  let out = base;
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`;
    else out += out ? `.${String(p)}` : String(p);
  }
  return out || "(top)";
}

/** One line per problem, each starting with where it is. */
export function describeIssues(issues: z.core.$ZodIssue[], at: string): string[] {
  const lines: string[] = [];
  for (const i of issues) {
    if (i.code === "unrecognized_keys") {
      for (const k of i.keys) lines.push(`${join(at, [...i.path, k])}: unknown key`);
    } else {
      lines.push(`${join(at, i.path)}: ${i.message}`);
    }
  }
  return lines;
}

function fail(lines: string[]): never {
  const first = lines[0]?.split(":")[0] ?? null;
  throw new AppError("invalid_request", { detail: lines.join("; ") }, first);
}

export function parseModel(value: unknown, at = ""): ModelDef {
  const r = modelInputSchema.safeParse(value);
  if (!r.success) fail(describeIssues(r.error.issues, at));
  return toModelDef(r.data);
}

export function parseModelList(value: unknown, at = "models"): ModelDef[] {
  if (!Array.isArray(value)) fail([`${at}: expected a list of models`]);
  const lines: string[] = [];
  const defs: ModelDef[] = [];
  value.forEach((v, i) => {
    const r = modelInputSchema.safeParse(v);
    if (r.success) defs.push(toModelDef(r.data));
    else lines.push(...describeIssues(r.error.issues, `${at}[${i}]`));
  });
  const seen = new Map<string, string>();
  for (const d of defs) {
    for (const n of [d.name, ...d.aliases]) {
      const other = seen.get(n);
      if (other) lines.push(`${at}: '${n}' names both '${other}' and '${d.name}'`);
      else seen.set(n, d.name);
    }
  }
  if (lines.length) fail(lines);
  return defs;
}

export function parseModelYaml(text: string): ModelDef[] {
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (e) {
    fail([`the YAML does not parse: ${(e as Error).message.split("\n")[0]}`]);
  }
  if (Array.isArray(value)) return parseModelList(value);
  if (value && typeof value === "object" && "models" in value && Object.keys(value).length === 1) {
    return parseModelList((value as { models: unknown }).models);
  }
  return [parseModel(value)];
}
