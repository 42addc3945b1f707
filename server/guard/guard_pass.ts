/**
 * One request's way through the guardrails: the policies that apply to it, the verdicts so far,
 * and (with `restore`) the placeholders and the client's values they stand for, held in memory
 * for the request's life only. Every text of the request and of its answer goes through `check`.
 */
import { AppError } from "../../core/errors.ts";
import type { CompiledPolicy } from "./compiled_policy.ts";
import type { Span } from "./detectors.ts";
import { normalizeText } from "./normalize.ts";
import type { GuardAction } from "./policy.ts";
import type { AnswerJudging } from "./judge/judge_step.ts";

export interface Verdict {
  policy: string;
  rule: string;
  action: GuardAction;
  /** CPU time of the check that gave it, in µs (the whole side's check); a judge's wait or a service's call time. */
  latencyUs: number;
  /** A judge that did not answer in time: its rule's `fail` decided (open: flag; closed: block). */
  fail?: "open" | "closed";
  /** A service that did not answer (the policy's `fail` chose the action). */
  silent?: true;
  /** What a service said of why (a category, cut short). */
  reason?: string;
}

export type Direction = "input" | "output";

export class GuardPass {
  readonly verdicts: Verdict[] = [];
  /** The verdict that ended the request, if one did. */
  blocked: Verdict | undefined;
  /** Set when an output policy has a judge: what judging the answer needs (judge/judge_step.ts). */
  judging: AnswerJudging | undefined;
  readonly restore: boolean;
  readonly #outputRules: boolean;
  /** Placeholder → the client's value, and back. */
  readonly #values = new Map<string, string>();
  readonly #placeholders = new Map<string, string>();
  readonly #counts = new Map<string, number>();
  #spentUs = 0;
  /** Verdicts that carry their own latency (a judge's wait), not the checks' CPU time. */
  readonly #timed = new Set<Verdict>();

  constructor(readonly policies: readonly CompiledPolicy[]) {
    this.restore = policies.some((p) => p.restore);
    this.#outputRules = policies.some((p) => p.output);
  }

  /** Whether the answer needs the relay's hook: output rules, or values to put back. */
  get hasOutput(): boolean {
    return this.#outputRules || this.restoring;
  }

  /**
   * One text of the request or answer: the rules of the policies for that direction run on its
   * normalised form; the text comes back redacted where a `redact` rule found something (the
   * normalised form, then), else as it was. A `block` sets `blocked` and stops there.
   */
  check(text: string, direction: Direction): string {
    const found = this.scan(text, direction);
    if (found === null || found.spans.length === 0) return text;
    return this.#redact(found.norm, found.spans, direction === "input");
  }

  /**
   * The rules of one direction over a text's normalised form: what the `redact` rules found in
   * it (merged, in order), or null when a `block` rule ended the request. Verdicts are noted.
   */
  scan(text: string, direction: Direction): { norm: string; spans: Span[] } | null {
    if (this.blocked) return null;
    if (text.length === 0) return { norm: text, spans: [] };
    const t0 = performance.now();
    const norm = normalizeText(text);
    const redact: Span[] = [];
    for (const p of this.policies) {
      if (direction === "input" ? !p.input : !p.output) continue;
      for (const rule of p.rules) {
        const found = rule.find(norm);
        if (found.length === 0) continue;
        const v = this.#note(p.name, rule.name, rule.action);
        if (rule.action === "block") {
          this.blocked = v;
          this.#spend(t0);
          return null;
        }
        if (rule.action === "redact") redact.push(...found);
      }
    }
    this.#spend(t0);
    return { norm, spans: mergeSpans(redact) };
  }

  /** What an answer's own value is replaced with: the client's placeholder when it is theirs. */
  outputPlaceholder(label: string, value: string): string {
    return this.#placeholder(label, value, false);
  }

  /**
   * A verdict reached off the synchronous checks (a judge's, a service's), with its own latency;
   * a `block` ends the request as a rule's would.
   */
  record(v: Verdict): void {
    if (this.blocked) return;
    this.verdicts.push(v);
    this.#timed.add(v);
    if (v.action === "block") this.blocked = v;
  }

  /** The error a block answers with: the policy and rule, never what matched. */
  blockError(): AppError {
    const v = this.blocked!;
    const code = v.fail === "closed" ? "guardrail_unavailable" : "guardrail_blocked";
    return new AppError(code, { policy: v.policy, rule: v.rule });
  }

  /** The client's own values put back for the placeholders in `text` (JSON-escaped in a JSON string). */
  restoreIn(text: string, jsonString = false): string {
    if (this.#values.size === 0 || !text.includes("[")) return text;
    return text.replace(placeholderPattern, (ph) => {
      const v = this.#values.get(ph);
      if (v === undefined) return ph;
      return jsonString ? JSON.stringify(v).slice(1, -1) : v;
    });
  }

  /** Whether the placeholders this request made could start with `tail` (held back in a stream). */
  mayStartPlaceholder(tail: string): boolean {
    if (this.#values.size === 0) return false;
    for (const ph of this.#values.keys()) if (ph.startsWith(tail)) return true;
    return false;
  }

  get restoring(): boolean {
    return this.restore && this.#values.size > 0;
  }

  /** The verdicts with the check's whole CPU time on each, for the usage row. */
  usageVerdicts(): Verdict[] | null {
    if (this.verdicts.length === 0) return null;
    return this.verdicts.map((v) =>
      this.#timed.has(v) ? { ...v } : { ...v, latencyUs: Math.round(this.#spentUs) }
    );
  }

  /** One verdict per rule per request, however many texts it matched in. */
  #note(policy: string, rule: string, action: GuardAction): Verdict {
    const seen = this.verdicts.find((v) => v.policy === policy && v.rule === rule);
    if (seen) return seen;
    const v = { policy, rule, action, latencyUs: 0 };
    this.verdicts.push(v);
    return v;
  }

  #spend(t0: number): void {
    this.#spentUs += (performance.now() - t0) * 1000;
  }

  /** `keep`: the values are the client's, to be given back (an answer's own are not). */
  #redact(text: string, spans: readonly Span[], keep: boolean): string {
    let out = "";
    let at = 0;
    for (const s of spans) {
      out += text.slice(at, s.start) + this.#placeholder(s.label, text.slice(s.start, s.end), keep);
      at = s.end;
    }
    return out + text.slice(at);
  }

  /** The same value gets the same placeholder throughout the request. */
  #placeholder(label: string, value: string, keep: boolean): string {
    const known = this.#placeholders.get(value);
    if (known) return known;
    if (!keep) return `[${label}]`;
    const n = (this.#counts.get(label) ?? 0) + 1;
    this.#counts.set(label, n);
    const ph = `[${label}_${n}]`;
    this.#placeholders.set(value, ph);
    if (this.restore) this.#values.set(ph, value);
    return ph;
  }
}

/**
 * Spans in order with overlaps joined, so a value two rules found differently is replaced whole
 * (skipping the later one left its tail in the text). The first span's label names the join.
 */
function mergeSpans(spans: Span[]): Span[] {
  if (spans.length < 2) return spans;
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Span[] = [{ ...spans[0]! }];
  for (const s of spans.slice(1)) {
    const last = out[out.length - 1]!;
    if (s.start < last.end) last.end = Math.max(last.end, s.end);
    else out.push({ ...s });
  }
  return out;
}

const placeholderPattern = /\[[A-Z0-9_]+_\d+\]/g;
