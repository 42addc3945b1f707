/**
 * Admission: the one in-memory check every /v1 request passes before routing. It applies the
 * allowed models, the rate limits (requests and tokens per minute, sliding windows) and the
 * budgets of every level above the key, and answers with OpenAI's `x-ratelimit-*` headers or a
 * 429 naming the limit, the level and when it resets. `settle` corrects the token estimate and
 * charges the cost when the answer's usage is known. No store read happens on this path.
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
import { cost, type PriceBook } from "./price.ts";
import { formatReset, SlidingWindow } from "./window.ts";

export interface Ticket {
  chain: Scope[];
  tokenWindows: SlidingWindow[];
  estimate: number;
}

export type Admitted =
  | { ok: true; headers: Record<string, string>; ticket: Ticket }
  | {
    ok: false;
    error: AppError;
    /** Which kind of limit bound, at which level, for metrics and notifications. */
    refusal?: { kind: "rate_limit" | "budget"; scope: Scope; label: string };
  };

export interface SettleUsage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens?: number;
}

/** A rough count of the tokens a request will use, for the tokens-per-minute check. */
export function estimateTokens(body: Record<string, unknown>): number {
  const text = JSON.stringify(body.messages ?? body.prompt ?? body.input ?? "");
  const max = Number(body.max_completion_tokens ?? body.max_tokens ?? 0);
  return Math.ceil(text.length / 4) + (Number.isFinite(max) && max > 0 ? max : 0);
}

interface Binding {
  scope: Scope;
  limit: number;
  window: SlidingWindow;
}

export class Admission {
  readonly #windows = new Map<string, SlidingWindow>();

  constructor(
    private readonly deps: {
      clock: Clock;
      tenancy: Tenancy;
      limits: LimitsBook;
      budgets: BudgetBook;
      prices: PriceBook;
    },
  ) {}

  #window(name: string): SlidingWindow {
    let w = this.#windows.get(name);
    if (!w) this.#windows.set(name, w = new SlidingWindow());
    return w;
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

  admit(input: { key: ApiKeyInfo; model: string; estimate: number }): Admitted {
    const { key, model } = input;
    const estimate = Math.max(0, Math.ceil(input.estimate));
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
      budgetChecks.push({ scope, counted, set });
    }

    for (const b of requests) {
      const used = b.window.rate(now);
      if (used + 1 > b.limit) {
        return this.#rateRefusal(b, "requests", used, 1, now, requests, tokens);
      }
    }
    for (const b of tokens) {
      const used = b.window.rate(now);
      if (used + estimate > b.limit) {
        return this.#rateRefusal(b, "tokens", used, estimate, now, requests, tokens);
      }
    }
    for (const { scope, counted, set } of budgetChecks) {
      for (const period of ["day", "month"] as Period[]) {
        const spent = budgets.spent(counted, period);
        const money = period === "day" ? set.budgetDayMicros : set.budgetMonthMicros;
        const toks = period === "day" ? set.budgetDayTokens : set.budgetMonthTokens;
        const over = money !== null && spent.micros >= money
          ? { spent: spent.micros, max: money, unit: "micro-units" }
          : toks !== null && spent.tokens >= toks
          ? { spent: spent.tokens, max: toks, unit: "tokens" }
          : null;
        if (!over) continue;
        const resetAt = periodEnd(period, now);
        return {
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
      }
    }

    const seen = new Set<SlidingWindow>();
    for (const b of requests) if (!seen.has(b.window)) seen.add(b.window), b.window.add(now, 1);
    const tokenWindows = [...new Set(tokens.map((b) => b.window))];
    for (const w of tokenWindows) w.add(now, estimate);
    return {
      ok: true,
      headers: this.#headers(now, requests, tokens),
      ticket: { chain: chain.map((s) => this.#counted(s, key)), tokenWindows, estimate },
    };
  }

  /** Corrects the token estimate and charges the cost to every level; returns the cost. */
  /** `pricePercent`: the share of the model's price charged (a batch line pays its batch price). */
  settle(
    input: { ticket: Ticket; model: string; usage: SettleUsage; pricePercent?: number },
  ): number {
    const { ticket, usage } = input;
    const used = Math.max(0, usage.promptTokens) + Math.max(0, usage.completionTokens);
    const now = this.deps.clock.now();
    for (const w of ticket.tokenWindows) w.add(now, used - ticket.estimate);
    const full = cost(
      this.deps.prices.priceOf(input.model),
      usage.promptTokens,
      usage.cachedTokens ?? 0,
      usage.completionTokens,
    );
    const percent = input.pricePercent ?? 100;
    const micros = percent === 100 ? full : Math.ceil((full * percent) / 100);
    // The global scope counts the gateway's total; the per-key defaults count on the key's own.
    const scopes = [...new Map(ticket.chain.map((s) => [`${s.kind}:${s.id}`, s])).values()];
    this.deps.budgets.add(scopes, micros, used);
    return micros;
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
        "rate_limited",
        {
          limit: what === "requests" ? "requests per minute" : "tokens per minute",
          level: this.label(b.scope),
          used: Math.ceil(used),
          max: b.limit,
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
