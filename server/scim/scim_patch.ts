/**
 * SCIM PATCH (RFC 7644 §3.5.2) applied to a resource's JSON, as the RFC writes it and as Entra ID
 * and Okta send it: ops in any case (`Replace`, `Add`), booleans as strings (`"False"`), a value
 * object with no path (`{"op":"replace","value":{"active":false}}`, keys that may be paths
 * themselves), `emails[type eq "work"].value`, and members added or removed by value or by
 * filter (`members[value eq "id"]`). The caller turns the patched JSON back into its own rows.
 */
import { z } from "zod";
import { AppError } from "../../core/errors.ts";
import { type Filter, matches, normalPath, parseFilter } from "./scim_filter.ts";

export const patchBody = z.object({
  schemas: z.array(z.string()).optional(),
  Operations: z.array(z.object({
    op: z.string(),
    path: z.string().optional(),
    value: z.unknown().optional(),
  })).min(1),
});

export type PatchBody = z.infer<typeof patchBody>;
type Json = Record<string, unknown>;

interface Path {
  attr: string;
  filter?: Filter;
  sub?: string;
}

function badPath(detail: string): AppError {
  return new AppError("scim_invalid_path", { detail });
}

function parsePath(text: string): Path {
  const m = /^([^[\]]+?)(?:\[(.+)\])?(?:\.([^.[\]]+))?$/.exec(text.trim());
  if (!m) throw badPath(`'${text}' is not a SCIM path`);
  const attr = normalPath(m[1]!);
  if (!/^[a-z][\w$-]*(\.[a-z][\w$-]*)?$/.test(attr)) throw badPath(`'${text}' is not a SCIM path`);
  return {
    attr,
    ...(m[2] ? { filter: parseFilter(m[2]) } : {}),
    ...(m[3] ? { sub: m[3].toLowerCase() } : {}),
  };
}

/** The key in `o` that names `attr` whatever its case, or `attr` itself when absent. */
function keyOf(o: Json, attr: string): string {
  return Object.keys(o).find((k) => k.toLowerCase() === attr) ?? attr;
}

/** `"True"`/`"False"` as booleans (Entra ID sends them so); anything else as it is. */
export function scimBool(v: unknown): unknown {
  if (typeof v === "string" && /^(true|false)$/i.test(v)) return v.toLowerCase() === "true";
  return v;
}

function set(o: Json, dotted: string, value: unknown): void {
  const [head, rest] = dotted.split(/\.(.*)/s, 2) as [string, string | undefined];
  const k = keyOf(o, head);
  if (rest === undefined) {
    o[k] = value;
    return;
  }
  const child = o[k];
  const obj: Json = child && typeof child === "object" && !Array.isArray(child)
    ? child as Json
    : {};
  o[k] = obj;
  set(obj, rest, value);
}

function remove(o: Json, dotted: string): void {
  const [head, rest] = dotted.split(/\.(.*)/s, 2) as [string, string | undefined];
  const k = keyOf(o, head);
  if (rest === undefined) delete o[k];
  else if (o[k] && typeof o[k] === "object") remove(o[k] as Json, rest);
}

function sameElement(a: unknown, b: unknown): boolean {
  const va = (a as Json | null)?.value;
  const vb = (b as Json | null)?.value;
  return va !== undefined && va === vb;
}

/** Applies the operations to `resource` in place, in order (all or nothing is the caller's). */
export function applyPatch(resource: Json, body: PatchBody): void {
  for (const op of body.Operations) {
    const kind = op.op.toLowerCase();
    if (kind !== "add" && kind !== "replace" && kind !== "remove") {
      throw new AppError("invalid_request", { detail: `'${op.op}' is not a PATCH op` });
    }
    const value = op.value;
    if (!op.path) {
      if (kind === "remove") throw badPath("remove needs a path");
      if (!value || typeof value !== "object" || Array.isArray(value)) {
        throw new AppError("invalid_request", { detail: "an op without a path needs an object" });
      }
      for (const [k, v] of Object.entries(value as Json)) {
        applyAt(resource, kind, parsePath(k), v);
      }
      continue;
    }
    applyAt(resource, kind, parsePath(op.path), value);
  }
}

function applyAt(o: Json, kind: "add" | "replace" | "remove", p: Path, value: unknown): void {
  const k = keyOf(o, p.attr.split(".")[0]!);
  const current = p.attr.includes(".") ? undefined : o[k];
  if (p.filter) {
    const list = Array.isArray(current) ? current as Json[] : [];
    const hit = list.filter((el) => matches(el, p.filter!));
    if (kind === "remove") {
      if (p.sub) { for (const el of hit) delete el[keyOf(el, p.sub)]; }
      else o[k] = list.filter((el) => !hit.includes(el));
      return;
    }
    if (!p.sub) throw badPath("a filtered path without a sub-attribute cannot be set");
    if (hit.length) {
      for (const el of hit) el[keyOf(el, p.sub)] = value;
      return;
    }
    // `emails[type eq "work"].value` on a person without a work email: that email is made.
    const made: Json = { [p.sub]: value };
    const f = p.filter;
    if (f.kind === "compare" && f.op === "eq") made[f.path] = f.value;
    o[k] = [...list, made];
    return;
  }
  const path = p.sub ? `${p.attr}.${p.sub}` : p.attr;
  if (kind === "remove") {
    if (Array.isArray(current) && Array.isArray(value)) {
      o[k] = current.filter((el) => !value.some((v) => sameElement(el, v)));
    } else remove(o, path);
    return;
  }
  if (kind === "add" && Array.isArray(current)) {
    const adds = Array.isArray(value) ? value : [value];
    o[k] = [...current, ...adds.filter((v) => !current.some((el) => sameElement(el, v)))];
    return;
  }
  set(o, path, value);
}
