/**
 * The guardrail policies, in memory (compiled) and in the store. The request path asks only for
 * the policies on a key's chain of levels: all of them apply, widest first, so a level below can
 * add rules but never take away one above.
 */
import { eq } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import type { Store } from "../../db/store.ts";
import { guardPolicies } from "../../db/schema.ts";
import type { Scope } from "../tenancy/tenancy.ts";
import { type CompiledPolicy, compilePolicy } from "./compiled_policy.ts";
import { type GuardPolicy, guardRule, type PolicyBody } from "./policy.ts";

export class GuardPolicies {
  readonly #byName = new Map<string, { policy: GuardPolicy; compiled: CompiledPolicy }>();

  private constructor(private readonly deps: { store: Store; clock: Clock }) {}

  static async load(deps: { store: Store; clock: Clock }): Promise<GuardPolicies> {
    const book = new GuardPolicies(deps);
    for (const r of await deps.store.db.select().from(guardPolicies)) {
      // A rule the code no longer takes is dropped from the policy, not left to fail each request.
      const rules = r.rules.flatMap((x) => {
        const parsed = guardRule.safeParse(x);
        return parsed.success ? [parsed.data] : [];
      });
      book.#keep({
        name: r.name,
        scope: { kind: r.scopeKind, id: r.scopeId },
        applyTo: r.applyTo,
        restore: r.restore,
        fail: r.fail,
        bufferAll: r.stream === "buffer_all",
        rules,
        updatedAt: r.updatedAt,
      });
    }
    return book;
  }

  list(): GuardPolicy[] {
    return [...this.#byName.values()].map((x) => x.policy);
  }

  get(name: string): GuardPolicy | undefined {
    return this.#byName.get(name)?.policy;
  }

  compiled(name: string): CompiledPolicy | undefined {
    return this.#byName.get(name)?.compiled;
  }

  /** The policies attached to the levels of `chain`, in its order (widest first). */
  forChain(chain: readonly Scope[]): CompiledPolicy[] {
    if (this.#byName.size === 0) return [];
    const out: CompiledPolicy[] = [];
    for (const scope of chain) {
      for (const { policy, compiled } of this.#byName.values()) {
        if (policy.scope.kind === scope.kind && policy.scope.id === scope.id) out.push(compiled);
      }
    }
    return out;
  }

  async set(name: string, body: PolicyBody): Promise<GuardPolicy> {
    const policy: GuardPolicy = {
      name,
      scope: body.scope,
      applyTo: body.apply_to,
      restore: body.restore ?? false,
      fail: body.fail ?? "open",
      bufferAll: body.stream === "buffer_all",
      rules: body.rules,
      updatedAt: this.deps.clock.now(),
    };
    const row = {
      name,
      scopeKind: policy.scope.kind,
      scopeId: policy.scope.id,
      applyTo: policy.applyTo,
      restore: policy.restore,
      fail: policy.fail,
      stream: policy.bufferAll ? "buffer_all" as const : null,
      rules: policy.rules,
      updatedAt: policy.updatedAt,
    };
    await this.deps.store.write((tx) =>
      tx.insert(guardPolicies).values(row).onConflictDoUpdate({
        target: guardPolicies.name,
        set: row,
      })
    );
    this.#keep(policy);
    return policy;
  }

  async remove(name: string): Promise<boolean> {
    if (!this.#byName.has(name)) return false;
    await this.deps.store.write((tx) =>
      tx.delete(guardPolicies).where(eq(guardPolicies.name, name))
    );
    this.#byName.delete(name);
    return true;
  }

  #keep(policy: GuardPolicy): void {
    this.#byName.set(policy.name, { policy, compiled: compilePolicy(policy) });
  }
}
