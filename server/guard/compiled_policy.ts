/** A policy made ready to run: each rule's finder built once, when the policy is loaded or set. */
import { findPii, findSecrets, piiKinds, type Span } from "./detectors.ts";
import type { GuardAction, GuardPolicy, GuardRule } from "./policy.ts";
import { compilePattern, lowerSameLength } from "./patterns.ts";
import type { JudgeRule } from "./judge/judge_rule.ts";
import type { ServiceRule } from "./service_rule.ts";

export interface CompiledRule {
  readonly name: string;
  readonly action: GuardAction;
  /** The spans the rule finds in a (normalised) text; `max_chars` finds the whole text or none. */
  readonly find: (text: string) => Span[];
}

export interface CompiledPolicy {
  readonly name: string;
  readonly input: boolean;
  readonly output: boolean;
  readonly restore: boolean;
  readonly fail: "open" | "closed";
  readonly bufferAll: boolean;
  readonly rules: readonly CompiledRule[];
  /** Judge rules: asked on the request's input, off the synchronous checks (server/guard/judge/). */
  readonly judges: readonly JudgeRule[];
  /** The outside services, asked over HTTP after the rules (server/guard/service_calls.ts). */
  readonly services: readonly ServiceRule[];
}

export function compilePolicy(p: GuardPolicy): CompiledPolicy {
  return {
    name: p.name,
    input: p.applyTo !== "output",
    output: p.applyTo !== "input",
    restore: p.restore,
    fail: p.fail,
    bufferAll: p.bufferAll,
    rules: p.rules.flatMap((r) =>
      r.kind === "judge" || r.kind === "service" ? [] : [compileRule(r)]
    ),
    judges: p.rules.filter((r) => r.kind === "judge"),
    services: p.rules.filter((r) => r.kind === "service"),
  };
}

function compileRule(rule: Exclude<GuardRule, JudgeRule | ServiceRule>): CompiledRule {
  const label = rule.name.toUpperCase().replace(/[^A-Z0-9]/g, "_");
  const base = { name: rule.name, action: rule.action };
  switch (rule.kind) {
    case "pattern": {
      const res = rule.patterns.map((p) => compilePattern(p)).filter((r) => r instanceof RegExp);
      return {
        ...base,
        find: (text) => {
          const lower = lowerSameLength(text);
          return res.flatMap((re) => matchSpans(re, lower, label));
        },
      };
    }
    case "literal": {
      const exact = rule.case_sensitive === true;
      const words = exact ? rule.literals : rule.literals.map((w) => w.toLowerCase());
      return {
        ...base,
        find: (text) => literalSpans(exact ? text : lowerSameLength(text), words, label),
      };
    }
    case "max_chars":
      return {
        ...base,
        find: (text) => text.length > rule.max ? [{ start: 0, end: text.length, label }] : [],
      };
    case "secrets":
      return { ...base, find: findSecrets };
    case "pii": {
      const kinds = rule.types ?? piiKinds;
      return { ...base, find: (text) => findPii(text, kinds) };
    }
  }
}

function matchSpans(re: RegExp, text: string, label: string): Span[] {
  const out: Span[] = [];
  for (const m of text.matchAll(re)) {
    // An empty match redacts nothing and would loop on a non-global scan.
    if (m[0].length) out.push({ start: m.index, end: m.index + m[0].length, label });
  }
  return out;
}

function literalSpans(text: string, words: readonly string[], label: string): Span[] {
  const out: Span[] = [];
  for (const w of words) {
    for (let at = text.indexOf(w); at >= 0; at = text.indexOf(w, at + w.length)) {
      out.push({ start: at, end: at + w.length, label });
    }
  }
  return out;
}
