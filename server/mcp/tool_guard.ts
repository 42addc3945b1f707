/**
 * Guardrails both ways on an MCP call: the tool's arguments are checked as input before they
 * leave (what an agent sends out is a prompt's text too), and the tool's answer is checked as the
 * prompt it becomes when the agent hands it to a model. A block is `guardrail_blocked`; a
 * redaction changes what is sent on (no restore: the values never come back through a tool).
 */
import type { CallToolResult } from "./sdk.ts";
import type { CompiledPolicy } from "../guard/compiled_policy.ts";
import { GuardPass } from "../guard/guard_pass.ts";
import { askServices, asksServices } from "../guard/service_calls.ts";

type Json = unknown;

/** The guard of one call, or undefined when no policy applies to the caller's levels. */
export function toolGuard(policies: readonly CompiledPolicy[]): ToolGuard | undefined {
  return policies.some((p) => p.input) ? new ToolGuard(new GuardPass(policies)) : undefined;
}

export class ToolGuard {
  constructor(readonly pass: GuardPass) {}

  /** The arguments as they may leave; throws `guardrail_blocked`. */
  async arguments(args: Record<string, unknown>): Promise<Record<string, unknown>> {
    return await this.#checked(args) as Record<string, unknown>;
  }

  /** The tool's answer as it may reach the agent; throws `guardrail_blocked`. */
  async answer(result: CallToolResult): Promise<CallToolResult> {
    return await this.#checked(result) as CallToolResult;
  }

  /** Every string in the value checked as input, then the services on them all. */
  async #checked(value: Json): Promise<Json> {
    const texts: string[] = [];
    const out = mapStrings(value, (s) => {
      const t = this.pass.check(s, "input");
      texts.push(t);
      return t;
    });
    if (!this.pass.blocked && asksServices(this.pass, "input")) {
      await askServices(this.pass, "input", texts.join("\n\n"));
    }
    if (this.pass.blocked) throw this.pass.blockError();
    return out;
  }
}

/** The value with each string (not keys, nor `type` tags) put through `f`; copied where changed. */
function mapStrings(v: Json, f: (s: string) => string): Json {
  if (typeof v === "string") return f(v);
  if (Array.isArray(v)) {
    const out = v.map((x) => mapStrings(x, f));
    return out.some((x, i) => x !== v[i]) ? out : v;
  }
  if (typeof v === "object" && v !== null) {
    let out: Record<string, unknown> | undefined;
    for (const [k, x] of Object.entries(v)) {
      if (k === "type" || k === "mimeType" || k === "uri") continue;
      const y = mapStrings(x, f);
      if (y !== x) (out ??= { ...v as Record<string, unknown> })[k] = y;
    }
    return out ?? v;
  }
  return v;
}
