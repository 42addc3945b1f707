/**
 * SCIM filters (RFC 7644 §3.4.2.2): `userName eq "ada"`, `externalId eq "…"`,
 * `emails[type eq "work" and value co "@example"]`, `members[value eq "id"]`, with and/or/not
 * and parentheses (not binds tighter than and, and than or). Attribute names and string
 * comparisons ignore case, as the core schema's attributes are caseExact false; a path may carry
 * its schema URN. The same parser reads PATCH paths (scim_patch.ts).
 */
import { AppError } from "../../core/errors.ts";

export type CompareOp = "eq" | "ne" | "co" | "sw" | "ew" | "gt" | "ge" | "lt" | "le";
type Value = string | number | boolean | null;

export type Filter =
  | { kind: "and" | "or"; left: Filter; right: Filter }
  | { kind: "not"; filter: Filter }
  | { kind: "present"; path: string }
  | { kind: "compare"; path: string; op: CompareOp; value: Value }
  | { kind: "value"; path: string; filter: Filter };

const compareOps = new Set(["eq", "ne", "co", "sw", "ew", "gt", "ge", "lt", "le"]);

type Token = { t: "word" | "string" | "(" | ")" | "[" | "]"; v: string };

function invalid(detail: string): AppError {
  return new AppError("scim_invalid_filter", { detail });
}

function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === " " || c === "\t") {
      i++;
    } else if ("()[]".includes(c)) {
      out.push({ t: c as "(" | ")" | "[" | "]", v: c });
      i++;
    } else if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      if (j >= text.length) throw invalid("a string is not closed");
      out.push({ t: "string", v: JSON.parse(text.slice(i, j + 1)) as string });
      i = j + 1;
    } else {
      let j = i;
      while (j < text.length && !' \t()[]"'.includes(text[j]!)) j++;
      out.push({ t: "word", v: text.slice(i, j) });
      i = j;
    }
  }
  return out;
}

/** The attribute path without its schema URN, lower-cased: `name.givenname`. */
export function normalPath(path: string): string {
  const urn = /^urn:[^ ]*:(?=[^:]+$)/i.exec(path);
  return (urn ? path.slice(urn[0].length) : path).toLowerCase();
}

export function parseFilter(text: string): Filter {
  const tokens = tokenize(text);
  let pos = 0;
  const peek = () => tokens[pos];
  const next = () => {
    const t = tokens[pos++];
    if (!t) throw invalid("the filter ends early");
    return t;
  };
  const isWord = (w: string) => peek()?.t === "word" && peek()!.v.toLowerCase() === w;

  const or = (): Filter => {
    let left = and();
    while (isWord("or")) {
      pos++;
      left = { kind: "or", left, right: and() };
    }
    return left;
  };
  const and = (): Filter => {
    let left = unary();
    while (isWord("and")) {
      pos++;
      left = { kind: "and", left, right: unary() };
    }
    return left;
  };
  const unary = (): Filter => {
    if (isWord("not")) {
      pos++;
      if (next().t !== "(") throw invalid("not must be followed by (");
      const inner = or();
      if (next().t !== ")") throw invalid("a ( is not closed");
      return { kind: "not", filter: inner };
    }
    if (peek()?.t === "(") {
      pos++;
      const inner = or();
      if (next().t !== ")") throw invalid("a ( is not closed");
      return inner;
    }
    return attribute();
  };
  const attribute = (): Filter => {
    const name = next();
    if (name.t !== "word") throw invalid(`expected an attribute, found '${name.v}'`);
    const path = normalPath(name.v);
    if (peek()?.t === "[") {
      pos++;
      const inner = or();
      if (next().t !== "]") throw invalid("a [ is not closed");
      return { kind: "value", path, filter: inner };
    }
    const op = next();
    const o = op.v.toLowerCase();
    if (op.t !== "word") throw invalid(`expected an operator after ${name.v}`);
    if (o === "pr") return { kind: "present", path };
    if (!compareOps.has(o)) throw invalid(`'${op.v}' is not a SCIM operator`);
    const v = next();
    return { kind: "compare", path, op: o as CompareOp, value: literal(v) };
  };

  const f = or();
  if (pos !== tokens.length) throw invalid(`unexpected '${tokens[pos]!.v}'`);
  return f;
}

function literal(t: Token): Value {
  if (t.t === "string") return t.v;
  if (t.t !== "word") throw invalid(`expected a value, found '${t.v}'`);
  const w = t.v.toLowerCase();
  if (w === "true") return true;
  if (w === "false") return false;
  if (w === "null") return null;
  const n = Number(t.v);
  if (Number.isFinite(n)) return n;
  throw invalid(`'${t.v}' is not a value: strings are quoted`);
}

/** The values at a path (lower-cased names), flattened across multi-valued attributes. */
export function valuesAt(resource: unknown, path: string): unknown[] {
  let here: unknown[] = [resource];
  for (const part of path.split(".")) {
    const next: unknown[] = [];
    for (const h of here.flatMap((x) => (Array.isArray(x) ? x : [x]))) {
      if (h === null || typeof h !== "object") continue;
      const key = Object.keys(h).find((k) => k.toLowerCase() === part);
      if (key !== undefined) next.push((h as Record<string, unknown>)[key]);
    }
    here = next;
  }
  return here.flatMap((x) => (Array.isArray(x) ? x : [x])).filter((x) => x !== undefined);
}

function compare(a: unknown, op: CompareOp, b: Value): boolean {
  if (typeof a === "string" && typeof b === "string") {
    const x = a.toLowerCase();
    const y = b.toLowerCase();
    switch (op) {
      case "eq":
        return x === y;
      case "ne":
        return x !== y;
      case "co":
        return x.includes(y);
      case "sw":
        return x.startsWith(y);
      case "ew":
        return x.endsWith(y);
      case "gt":
        return x > y;
      case "ge":
        return x >= y;
      case "lt":
        return x < y;
      case "le":
        return x <= y;
    }
  }
  if (op === "eq") return a === b;
  if (op === "ne") return a !== b;
  if (typeof a === "number" && typeof b === "number") {
    return op === "gt" ? a > b : op === "ge" ? a >= b : op === "lt" ? a < b : op === "le" && a <= b;
  }
  return false;
}

export function matches(resource: unknown, f: Filter): boolean {
  switch (f.kind) {
    case "and":
      return matches(resource, f.left) && matches(resource, f.right);
    case "or":
      return matches(resource, f.left) || matches(resource, f.right);
    case "not":
      return !matches(resource, f.filter);
    case "present":
      return valuesAt(resource, f.path).some((v) => v !== null && v !== "");
    case "compare": {
      // A complex attribute compared as a whole is compared by its `value` (RFC 7644 §3.4.2.2).
      const values = valuesAt(resource, f.path).map((v) =>
        v !== null && typeof v === "object" ? (v as Record<string, unknown>).value : v
      );
      // `ne` on an absent attribute holds: nothing there equals the value.
      if (f.op === "ne") return values.every((v) => compare(v, "ne", f.value));
      return values.some((v) => compare(v, f.op, f.value));
    }
    case "value":
      return valuesAt(resource, f.path).some((el) => matches(el, f.filter));
  }
}
