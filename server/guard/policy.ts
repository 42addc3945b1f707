/**
 * A guardrail policy as the admin API takes it and the store keeps it: named, attached to one
 * level of the tree, applied to input, output or both, with its rules checked here once.
 */
import { z } from "zod";
import { piiKinds } from "./detectors.ts";
import { compilePattern } from "./patterns.ts";
import { judgeRuleSchema } from "./judge/judge_rule.ts";
import { serviceRule } from "./service_rule.ts";

export const guardActions = ["block", "redact", "flag"] as const;
export type GuardAction = (typeof guardActions)[number];

const ruleName = z.string().regex(
  /^[a-z0-9][a-z0-9_.-]{0,63}$/,
  "lower-case letters, digits, _ . -",
);
const action = z.enum(guardActions);

const patternRule = z.strictObject({
  name: ruleName,
  kind: z.literal("pattern"),
  action,
  patterns: z.array(z.string().min(1).max(1000)).min(1).max(100).superRefine((ps, ctx) => {
    for (const p of ps) {
      const refused = compilePattern(p);
      if (typeof refused === "string") ctx.addIssue({ code: "custom", message: refused });
    }
  }),
});
const literalRule = z.strictObject({
  name: ruleName,
  kind: z.literal("literal"),
  action,
  literals: z.array(z.string().min(1).max(1000)).min(1).max(10_000),
  /** Literals match whatever the case (the default), or exactly. */
  case_sensitive: z.boolean().optional(),
});
const maxCharsRule = z.strictObject({
  name: ruleName,
  kind: z.literal("max_chars"),
  // A text cannot be redacted down to a length: blocked or flagged.
  action: z.enum(["block", "flag"]),
  max: z.number().int().min(1),
});
const secretsRule = z.strictObject({
  name: ruleName,
  kind: z.literal("secrets"),
  action,
});
const piiRule = z.strictObject({
  name: ruleName,
  kind: z.literal("pii"),
  action,
  /** Which kinds; all of them when left out. */
  types: z.array(z.enum(piiKinds)).min(1).optional(),
});

export const guardRule = z.discriminatedUnion("kind", [
  patternRule,
  literalRule,
  maxCharsRule,
  secretsRule,
  piiRule,
  judgeRuleSchema(ruleName),
  serviceRule,
]);
export type GuardRule = z.infer<typeof guardRule>;

export const scopeKinds = ["global", "org", "team", "project", "person", "key"] as const;

export const policyBody = z.strictObject({
  scope: z.strictObject({ kind: z.enum(scopeKinds), id: z.string().min(1).max(200) }),
  apply_to: z.enum(["input", "output", "both"]),
  /** The model sees placeholders; the client gets its own values back in the answer. */
  restore: z.boolean().optional(),
  /** What a service (or judge) that does not answer in time means: allowed (open) or blocked. */
  fail: z.enum(["open", "closed"]).optional(),
  /**
   * `buffer_all`: a streamed answer is held whole, checked, then sent, so a service can stop it;
   * otherwise what went out cannot be taken back and a service can only flag a stream.
   */
  stream: z.enum(["buffer_all"]).optional(),
  rules: z.array(guardRule).min(1).max(50).superRefine((rules, ctx) => {
    const seen = new Set<string>();
    for (const r of rules) {
      if (seen.has(r.name)) ctx.addIssue({ code: "custom", message: `rule ${r.name} twice` });
      seen.add(r.name);
    }
  }),
});
export type PolicyBody = z.infer<typeof policyBody>;

export interface GuardPolicy {
  name: string;
  scope: { kind: (typeof scopeKinds)[number]; id: string };
  applyTo: "input" | "output" | "both";
  restore: boolean;
  fail: "open" | "closed";
  /** True under `stream: buffer_all`. */
  bufferAll: boolean;
  rules: GuardRule[];
  updatedAt: number;
}

export const policyName = z.string().regex(
  /^[a-z0-9][a-z0-9_.-]{0,63}$/,
  "a policy name is lower-case letters, digits, _ . - (at most 64)",
);

/** The policy's shape in the admin API's answers and audit rows. */
export function policyView(p: GuardPolicy) {
  return {
    name: p.name,
    scope: p.scope,
    apply_to: p.applyTo,
    restore: p.restore,
    fail: p.fail,
    ...(p.bufferAll ? { stream: "buffer_all" } : {}),
    rules: p.rules,
    updated_at: p.updatedAt,
  };
}

/** What a policy is accepted with but should be told: the limits of what it asks for. */
export function policyWarnings(body: PolicyBody): string[] {
  const output = body.apply_to !== "input";
  const services = body.rules.filter((r) =>
    r.kind === "service" && output && (r.on ?? "input") !== "input"
  );
  if (services.length === 0 || body.stream === "buffer_all") return [];
  return [
    `service ${
      services.map((r) => r.name).join(", ")
    } checks output without stream: buffer_all: it can only flag a streamed answer, which has gone out by the time it answers`,
  ];
}
