/**
 * The outside services of a request's policies, asked on one side of it: each service once,
 * however many policies name it, as the strictest of them says (block over flag, fail closed over
 * open), all at once. What comes back becomes verdicts on the request's pass.
 */
import type { CompiledPolicy } from "./compiled_policy.ts";
import type { Direction, GuardPass } from "./guard_pass.ts";
import { askService } from "./guard_service.ts";
import type { GuardAction } from "./policy.ts";
import type { ServiceRule } from "./service_rule.ts";

interface PlannedCall {
  rule: ServiceRule;
  /** The policy the verdict names: the strictest that names the service. */
  policy: string;
  action: "block" | "flag";
  failClosed: boolean;
}

const covers = (on: ServiceRule["on"], d: Direction) => (on ?? "input") === d || on === "both";

/** The services to ask on `direction`, each once. */
export function plannedCalls(
  policies: readonly CompiledPolicy[],
  direction: Direction,
): PlannedCall[] {
  const byName = new Map<string, PlannedCall>();
  for (const p of policies) {
    if (direction === "input" ? !p.input : !p.output) continue;
    for (const rule of p.services) {
      if (!covers(rule.on, direction)) continue;
      const action = rule.action ?? "block";
      const seen = byName.get(rule.name);
      if (!seen) {
        byName.set(rule.name, { rule, policy: p.name, action, failClosed: p.fail === "closed" });
        continue;
      }
      if (action === "block" && seen.action === "flag") {
        seen.action = "block";
        seen.policy = p.name;
      }
      seen.failClosed ||= p.fail === "closed";
    }
  }
  return [...byName.values()];
}

/** Whether any policy of the pass asks a service on `direction`. */
export function asksServices(pass: GuardPass, direction: Direction): boolean {
  return plannedCalls(pass.policies, direction).length > 0;
}

/**
 * Asks the services on `text` (the side's texts as the model sees them). `flagOnly`: what was
 * said has already gone out (a stream not held whole), so nothing can be stopped any more.
 */
export async function askServices(
  pass: GuardPass,
  direction: Direction,
  text: string,
  flagOnly = false,
): Promise<void> {
  if (pass.blocked || text.length === 0) return;
  const calls = plannedCalls(pass.policies, direction);
  if (calls.length === 0) return;
  const answers = await Promise.all(calls.map(async (call) => {
    const t0 = performance.now();
    const answer = await askService(call.rule, text);
    return { call, answer, latencyUs: Math.round((performance.now() - t0) * 1000) };
  }));
  for (const { call, answer, latencyUs } of answers) {
    const base = { policy: call.policy, rule: call.rule.name, latencyUs };
    const stop = (a: GuardAction): GuardAction => flagOnly ? "flag" : a;
    if (answer.kind === "unsafe") {
      pass.record({
        ...base,
        action: stop(call.action),
        ...(answer.reason ? { reason: answer.reason } : {}),
      });
    } else if (answer.kind === "silent") {
      pass.record({ ...base, action: stop(call.failClosed ? "block" : "flag"), silent: true });
    }
  }
}
