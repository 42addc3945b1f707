/**
 * Admission: the one in-memory check every /v1 request passes before routing. It applies the
 * allowed models, the rate limits (requests and tokens per minute, sliding windows, and requests
 * in flight per model), and the budgets of every level above the key, and answers with OpenAI's
 * `x-ratelimit-*` headers or a 429 naming the limit, the level and when it resets. No store read
 * happens on this path.
 *
 * Budgets hold under concurrency: each admitted request holds its worst-case cost (the prompt
 * estimate plus `max_tokens`, or the model's most output when the client names none) at every
 * level until `settle` charges the true cost (or `release` gives it back when the request failed
 * before it was recorded). A request is refused when spent + held + its own worst case would pass.
 *
 * The global level holds defaults that bind per key (a default of 60 rpm means 60 for each key,
 * not 60 for the whole gateway); every other level binds on one window or counter fed by all the
 * keys beneath it.
 */
import type { Clock } from "../../core/clock.ts";
import { AppError } from "../../core/errors.ts";
import type { ApiKeyInfo } from "../keys/keys.ts";
import type { Scope, Tenancy } from "../tenancy/tenancy.ts";
import { type BudgetBook, type Period, periodEnd } from "./budgets.ts";
import type { LimitsBook, LimitSet } from "./limits.ts";
import { cacheHitCost, cost, type PriceBook } from "./price.ts";
import { Holds } from "./holds.ts";
import { type Demand, tpmCount, worstOutput } from "./demand.ts";
import { formatReset, type SlidingWindow } from "./window.ts";
import { RateWindows } from "./rate_windows.ts";
import type { BudgetSlices, SliceNeed, Unit } from "../cluster/budget_slices.ts";

export { type Demand, demandOf } from "./demand.ts";

export interface Ticket {
  /** The levels counted, the global level as the key's own; no level twice. */
  chain: Scope[];
  tokenWindows: SlidingWindow[];
  estimate: number;
  model: string;
  /** What is held on every level of the chain until the request settles. */
  held: { micros: number; tokens: number };
  open: boolean;
}

export type Admitted =
  | { ok: true; headers: Record<string, string>; ticket: Ticket }
  | {
    ok: false;
    error: AppError;
    /** Which kind of limit bound, at which level, for metrics and notifications. */
    refusal?: { kind: "rate_limit" | "budget"; scope: Scope; label: string };
    /** Budgets whose slices could not hold the request: leased more, it may be admitted. */
    short?: SliceNeed[];
  };

export interface SettleUsage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens?: number;
  /**
   * The answer came from the answer cache: charged at the cache price, and its tokens are not
   * counted against token limits (no engine spent them).
   */
  fromCache?: boolean;
}

interface Binding {
  scope: Scope;
  limit: number;
  window: SlidingWindow;
}

export class Admission {
  readonly #holds = new Holds();
  /** What other control planes run, per level and model (`level|model`), as last reported. */
  #elsewhere = new Map<string, number>();
  /** The rate windows, shared with the window exchange when several control planes count. */
  readonly windows: RateWindows;

  constructor(
    private readonly deps: {
      clock: Clock;
      tenancy: Tenancy;
      limits: LimitsBook;
      budgets: BudgetBook;
      prices: PriceBook;
      windows?: RateWindows;
      /** Budgets leased in slices from the store, shared with other control planes. */
      slices?: BudgetSlices;
    },
  ) {
    this.windows = deps.windows ?? new RateWindows();
  }

  #window(name: string): SlidingWindow {
    return this.windows.get(name);
  }

  /** What runs at a level on a model across the control planes: here, and as others last said. */
  #running(scope: Scope, model: string): number {
    return this.#holds.running(scope, model) +
      (this.#elsewhere.get(`${scope.kind}:${scope.id}|${model}`) ?? 0);
  }

  /** This control plane's running counts, for the others (`level|model`). */
  runningHere(): Iterable<[string, number]> {
    return this.#holds.runningAll();
  }

  /** The others' running counts, summed (`level|model`); replaces the last ones. */
  runningElsewhere(counts: Map<string, number>): void {
    this.#elsewhere = counts;
  }

  /** Where a level's limits are counted: the global level's defaults count per key. */
  #counted(scope: Scope, key: ApiKeyInfo): Scope {
    return scope.kind === "global" ? { kind: "key", id: key.id } : scope;
  }

  label(scope: Scope): string {
    const t = this.deps.tenancy;
    const name = scope.kind === "org"
      ? t.orgs.get(scope.id)?.name
      : scope.kind === "team"
      ? t.teams.get(scope.id)?.name
      : scope.kind === "project"
      ? t.projects.get(scope.id)?.name
      : scope.kind === "person"
      ? t.people.get(scope.id)?.username
      : scope.kind === "key"
      ? scope.id
      : undefined;
    return scope.kind === "global" ? "default (per key)" : `${scope.kind} '${name ?? scope.id}'`;
  }

  /** Whether a key may use a model at all: the allowed-models lists of its levels. */
  allows(key: ApiKeyInfo, model: string): boolean {
    const eff = this.deps.limits.effective(this.deps.tenancy.chain(key));
    return this.deps.limits.modelRefusedBy(eff, model) === null;
  }

  /**
   * Who a key is in a busy model's queue (the router's `Flow`): its project (or itself, in
   * none), the project's weight, and what each has admitted to the model and not yet ended.
   */
  flow(key: ApiKeyInfo, model: string): {
    project: string;
    key: string;
    weight: number;
    admitted(): { project: number; key: number };
  } {
    const own: Scope = { kind: "key", id: key.id };
    const project: Scope = key.projectId ? { kind: "project", id: key.projectId } : own;
    return {
      project: `${project.kind}:${project.id}`,
      key: key.id,
      weight: project.kind === "project" ? this.deps.limits.own(project)?.weight ?? 1 : 1,
      admitted: () => ({
        project: this.#running(project, model),
        key: this.#running(own, model),
      }),
    };
  }

  admit(input: { key: ApiKeyInfo; model: string; demand: Demand }): Admitted {
    const { key, model, demand } = input;
    const estimate = tpmCount(demand);
    const { tenancy, limits, budgets } = this.deps;
    const now = this.deps.clock.now();
    const person = key.userId ? tenancy.people.get(key.userId) : undefined;
    if (person && person.state !== "active") {
      return { ok: false, error: new AppError("invalid_api_key") };
    }
    const chain = tenancy.chain(key);
    const eff = limits.effective(chain);
    if (limits.modelRefusedBy(eff, model)) {
      return { ok: false, error: new AppError("model_not_found", { model }, "model") };
    }

    const requests: Binding[] = [];
    const tokens: Binding[] = [];
    const budgetChecks: { scope: Scope; counted: Scope; set: LimitSet }[] = [];
    const parallel: { scope: Scope; counted: Scope; limit: number }[] = [];
    for (const scope of chain) {
      const set = limits.own(scope);
      if (!set) continue;
      const counted = this.#counted(scope, key);
      const name = `${counted.kind}:${counted.id}`;
      if (set.rpm !== null) {
        requests.push({ scope, limit: set.rpm, window: this.#window(`r|${name}`) });
      }
      if (set.tpm !== null) {
        tokens.push({ scope, limit: set.tpm, window: this.#window(`t|${name}`) });
      }
      if (set.maxParallel !== null) parallel.push({ scope, counted, limit: set.maxParallel });
      budgetChecks.push({ scope, counted, set });
    }

    for (const b of tokens) {
      // A request bigger than a whole minute's allowance would be refused forever: say so now.
      if (estimate > b.limit) return this.#neverFits(b, demand, estimate);
    }
    for (const b of requests) {
      const used = b.window.rate(now);
      if (!b.window.fits(now, b.limit, 1)) {
        return this.#rateRefusal(b, "requests", used, 1, now, requests, tokens);
      }
    }
    for (const b of tokens) {
      const used = b.window.rate(now);
      if (!b.window.fits(now, b.limit, estimate)) {
        return this.#rateRefusal(b, "tokens", used, estimate, now, requests, tokens);
      }
    }
    for (const p of parallel) {
      const running = this.#running(p.counted, model);
      if (running + 1 > p.limit) return this.#parallelRefusal(p, running, model, requests, tokens);
    }
    const worstTokens = demand.prompt + worstOutput(demand);
    const worstMicros = cost(
      this.deps.prices.priceOf(model),
      demand.prompt,
      0,
      worstOutput(demand),
    );
    const slices = this.deps.slices;
    /** With slices: every budget this request reserves in, and those its slices cannot hold. */
    const needs: SliceNeed[] = [];
    const shorts: SliceNeed[] = [];
    let refused: Extract<Admitted, { ok: false }> | undefined;
    for (const { scope, counted, set } of budgetChecks) {
      const held = this.#holds.held(counted);
      for (const period of ["day", "month"] as Period[]) {
        const spent = budgets.spent(counted, period);
        const money = period === "day" ? set.budgetDayMicros : set.budgetMonthMicros;
        const toks = period === "day" ? set.budgetDayTokens : set.budgetMonthTokens;
        const passes = (
          max: number | null,
          used: number,
          hold: number,
          need: number,
          unit: Unit,
        ) => {
          if (max === null) return false;
          if (!slices) return used >= max || used + hold + need > max;
          const n = { scope: counted, period, unit, max, need: hold + need, spent: used };
          needs.push(n);
          if (hold + need <= slices.room(counted, period, unit)) return false;
          shorts.push(n);
          return true;
        };
        // Both checked with slices, so one lease asks for every budget the request lacks.
        const overMoney = passes(money, spent.micros, held.micros, worstMicros, "micros");
        const overTokens = (!overMoney || slices !== undefined) &&
          passes(toks, spent.tokens, held.tokens, worstTokens, "tokens");
        const over = overMoney
          ? {
            spent: this.#money(spent.micros),
            held: this.#money(held.micros),
            need: this.#money(worstMicros),
            max: this.#money(money!),
            unit: this.deps.prices.currency,
          }
          : overTokens
          ? {
            spent: spent.tokens,
            held: held.tokens,
            need: worstTokens,
            max: toks!,
            unit: "tokens",
          }
          : null;
        if (!over || refused) continue;
        const resetAt = periodEnd(period, now);
        refused = {
          ok: false,
          refusal: { kind: "budget", scope, label: this.label(scope) },
          error: new AppError(
            "budget_exceeded",
            {
              period: period === "day" ? "daily" : "monthly",
              level: this.label(scope),
              ...over,
              reset: new Date(resetAt).toISOString(),
            },
            null,
            {
              headers: {
                "retry-after": String(Math.ceil((resetAt - now) / 1000)),
                ...this.#headers(now, requests, tokens),
              },
            },
          ),
        };
        if (!slices) return refused;
      }
    }
    if (refused) return shorts.length ? { ...refused, short: shorts } : refused;
    slices?.refill(needs);

    const seen = new Set<SlidingWindow>();
    for (const b of requests) if (!seen.has(b.window)) seen.add(b.window), b.window.add(now, 1);
    const tokenWindows = [...new Set(tokens.map((b) => b.window))];
    for (const w of tokenWindows) w.add(now, estimate);
    // The global scope counts the gateway's total; the per-key defaults count on the key's own.
    const counted = [
      ...new Map(chain.map((s) => this.#counted(s, key)).map((s) => [`${s.kind}:${s.id}`, s]))
        .values(),
    ];
    const held = { micros: worstMicros, tokens: worstTokens };
    this.#holds.take(counted, model, held);
    return {
      ok: true,
      headers: this.#headers(now, requests, tokens),
      ticket: { chain: counted, tokenWindows, estimate, model, held, open: true },
    };
  }

  /**
   * Corrects the token estimate, gives back what was held and charges the cost to every level;
   * returns the cost. Once per ticket: a second call charges nothing. `pricePercent`: the share of
   * the model's price charged (a batch line pays its batch price).
   */
  settle(
    input: { ticket: Ticket; model: string; usage: SettleUsage; pricePercent?: number },
  ): number {
    const { ticket, usage } = input;
    if (!ticket.open) return 0;
    ticket.open = false;
    this.#holds.give(ticket.chain, ticket.model, ticket.held);
    const used = usage.fromCache
      ? 0
      : Math.max(0, usage.promptTokens) + Math.max(0, usage.completionTokens);
    const now = this.deps.clock.now();
    for (const w of ticket.tokenWindows) w.add(now, used - ticket.estimate);
    const price = this.deps.prices.priceOf(input.model);
    const full = usage.fromCache
      ? cacheHitCost(price, usage.promptTokens, usage.completionTokens)
      : cost(price, usage.promptTokens, usage.cachedTokens ?? 0, usage.completionTokens);
    const percent = input.pricePercent ?? 100;
    const micros = percent === 100 ? full : Math.ceil((full * percent) / 100);
    this.deps.budgets.add(ticket.chain, micros, used);
    this.deps.slices?.charge(ticket.chain, micros, used);
    return micros;
  }

  /**
   * The gateway's own request (embedding a question for the answer cache, as a judge's call is
   * the gateway's): held and charged on no level, so no tenant's limits slow the cache.
   */
  own(model: string): Extract<Admitted, { ok: true }> {
    const ticket: Ticket = {
      chain: [],
      tokenWindows: [],
      estimate: 0,
      model,
      held: { micros: 0, tokens: 0 },
      open: true,
    };
    return { ok: true, headers: {}, ticket };
  }

  /** Leases what a refusal's `short` names; the request then asks again (once). */
  async lease(short: SliceNeed[]): Promise<void> {
    await this.deps.slices?.lease(short);
  }

  /** A request that ended before it was recorded: what it held goes back, nothing is charged. */
  release(ticket: Ticket): void {
    this.settle({ ticket, model: ticket.model, usage: { promptTokens: 0, completionTokens: 0 } });
  }

  /** Micro-units as the currency's decimal, so a sum is never a bare number. */
  #money(micros: number): string {
    return (micros / 1_000_000).toFixed(6);
  }

  #neverFits(b: Binding, demand: Demand, need: number): Admitted {
    const output = need - demand.prompt;
    return {
      ok: false,
      refusal: { kind: "rate_limit", scope: b.scope, label: this.label(b.scope) },
      error: new AppError(
        "tokens_over_limit",
        {
          need,
          prompt: demand.prompt,
          output,
          max: b.limit,
          level: this.label(b.scope),
          fit: Math.max(0, b.limit - demand.prompt),
        },
        demand.asked === null ? "messages" : demand.askedField,
      ),
    };
  }

  #parallelRefusal(
    p: { scope: Scope; limit: number },
    running: number,
    model: string,
    requests: Binding[],
    tokens: Binding[],
  ): Admitted {
    const now = this.deps.clock.now();
    return {
      ok: false,
      refusal: { kind: "rate_limit", scope: p.scope, label: this.label(p.scope) },
      error: new AppError(
        "parallel_limited",
        { model, level: this.label(p.scope), used: running, max: p.limit },
        null,
        { headers: { "retry-after": "1", ...this.#headers(now, requests, tokens) } },
      ),
    };
  }

  #rateRefusal(
    b: Binding,
    what: "requests" | "tokens",
    used: number,
    n: number,
    now: number,
    requests: Binding[],
    tokens: Binding[],
  ): Admitted {
    const wait = b.window.waitFor(now, b.limit, n);
    return {
      ok: false,
      refusal: { kind: "rate_limit", scope: b.scope, label: this.label(b.scope) },
      error: new AppError(
        what === "requests" ? "rate_limited" : "tokens_rate_limited",
        {
          limit: "requests per minute",
          level: this.label(b.scope),
          used: Math.ceil(used),
          max: b.limit,
          need: n,
          reset: formatReset(wait),
        },
        null,
        {
          headers: {
            "retry-after": String(Math.max(1, Math.ceil(wait / 1000))),
            ...this.#headers(now, requests, tokens),
          },
        },
      ),
    };
  }

  /** OpenAI's headers, from the level with the least room left. */
  #headers(now: number, requests: Binding[], tokens: Binding[]): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [what, list] of [["requests", requests], ["tokens", tokens]] as const) {
      let tight: { b: Binding; left: number } | undefined;
      for (const b of list) {
        const left = b.limit - b.window.rate(now);
        if (!tight || left < tight.left) tight = { b, left };
      }
      if (!tight) continue;
      out[`x-ratelimit-limit-${what}`] = String(tight.b.limit);
      out[`x-ratelimit-remaining-${what}`] = String(Math.max(0, Math.floor(tight.left)));
      out[`x-ratelimit-reset-${what}`] = formatReset(tight.b.window.untilEmpty(now));
    }
    return out;
  }
}
