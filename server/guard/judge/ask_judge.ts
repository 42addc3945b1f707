/**
 * Asking a judge: a guard model of the catalog, served on the cluster's replicas like any other,
 * asked straight (no queue, no affinity, no answer cache, no prompt cache) within a budget.
 *
 * Hedged: a replica that has not answered by half the budget is joined by one on ANOTHER machine,
 * and the first is not cancelled. Not cancelled, because on a slow machine it would throw away
 * answers about to arrive; another machine, because replicas on one CPU-starved machine are slow
 * together (asking both only doubled the work: as many failures). When no judge answers at all
 * (none ready yet, a new leader), it is asked again every 250 ms while the budget lasts; a slow
 * judge is never asked twice.
 */
import {
  isJudgeFormatName,
  type JudgeFormat,
  judgeFormat,
  judgeRequestBody,
  type JudgeTurn,
  type JudgeVerdict,
} from "../../../core/judge_formats.ts";
import type { ModelCatalog } from "../../router/catalog.ts";
import type { Replica, ReplicaTable } from "../../router/replicas.ts";

export type JudgeOutcome =
  | { kind: "verdict"; verdict: JudgeVerdict; ms: number; replica: string; hedged: boolean }
  /** Nothing readable in the budget: slow, failing, or no replica at all. */
  | { kind: "late"; ms: number; why: string };

export interface JudgeAskerDeps {
  catalog: Pick<ModelCatalog, "get">;
  replicas: Pick<ReplicaTable, "forModel">;
}

/** How often a judge that could not be asked at all is tried again within the budget. */
const retryMs = 250;

export class JudgeAsker {
  /** Per model, where the last choice among equally idle replicas was: spread, never sticky. */
  readonly #turn = new Map<string, number>();

  constructor(private readonly deps: JudgeAskerDeps) {}

  /** The family `model` judges in, or why it cannot judge. */
  formatOf(model: string): JudgeFormat | string {
    const entry = this.deps.catalog.get(model);
    if (!entry) return `there is no model '${model}'`;
    if (!entry.judge || !isJudgeFormatName(entry.judge)) {
      return `'${model}' has no judge role`;
    }
    return judgeFormat(entry.judge);
  }

  /** One judgment of the conversation `turns` (its last turn is judged) within `budgetMs`. */
  async ask(model: string, turns: readonly JudgeTurn[], budgetMs: number): Promise<JudgeOutcome> {
    const t0 = performance.now();
    const ms = () => Math.round(performance.now() - t0);
    const format = this.formatOf(model);
    if (typeof format === "string") return { kind: "late", ms: ms(), why: format };
    const entry = this.deps.catalog.get(model)!;
    const body = JSON.stringify(judgeRequestBody(entry.upstreamModel ?? entry.name, format, turns));
    return await new JudgeRace(this, model, format, body, budgetMs).run(ms);
  }

  /** Ready replicas of `model` not in `skip`, least busy first, ties taken in turn. */
  candidates(model: string, skip: ReadonlySet<Replica>): Replica[] {
    const ready = this.deps.replicas.forModel(model).filter((r) =>
      r.state === "ready" && !skip.has(r)
    );
    const turn = this.#turn.get(model) ?? 0;
    this.#turn.set(model, turn + 1);
    const rotated = ready.map((r, i) => ({
      r,
      order: (i - (turn % ready.length) + ready.length) % ready.length,
    }));
    rotated.sort((a, b) => a.r.inFlight - b.r.inFlight || a.order - b.order);
    return rotated.map((x) => x.r);
  }
}

/** The machine a replica runs on: the node part of its route id; one without is its own. */
export function machineOf(r: Replica): string {
  const at = r.id.indexOf("/");
  return at > 0 ? r.id.slice(0, at) : r.id;
}

/** One judgment's tries: the first, the hedge at half the budget, retries when none could be asked. */
class JudgeRace {
  readonly #asked = new Set<Replica>();
  #outstanding = 0;
  #lastError = "no replica of the judge is ready";
  #settle!: (o: JudgeOutcome) => void;
  #done = false;
  #retry: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly asker: JudgeAsker,
    private readonly model: string,
    private readonly format: JudgeFormat,
    private readonly body: string,
    private readonly budgetMs: number,
  ) {}

  run(ms: () => number): Promise<JudgeOutcome> {
    const { promise, resolve } = Promise.withResolvers<JudgeOutcome>();
    this.#settle = (o) => {
      if (this.#done) return;
      this.#done = true;
      clearTimeout(deadline);
      clearTimeout(hedge);
      clearTimeout(this.#retry);
      resolve(o);
    };
    const deadline = setTimeout(
      () => this.#settle({ kind: "late", ms: ms(), why: this.#lateWhy() }),
      this.budgetMs,
    );
    const hedge = setTimeout(() => this.#hedge(ms), this.budgetMs / 2);
    this.#tryOne(ms, undefined);
    return promise;
  }

  #lateWhy(): string {
    return this.#outstanding > 0 ? `no verdict within ${this.budgetMs} ms` : this.#lastError;
  }

  /** The second question, to a replica on a machine not yet asked; none such: no second. */
  #hedge(ms: () => number): void {
    if (this.#done || this.#outstanding === 0) return;
    const machines = new Set([...this.#asked].map(machineOf));
    const other = this.asker.candidates(this.model, this.#asked).find((r) =>
      !machines.has(machineOf(r))
    );
    if (other) this.#send(other, ms, true);
  }

  /** Asks the best replica not yet asked; when there is none, again in 250 ms. */
  #tryOne(ms: () => number, avoid: string | undefined): void {
    if (this.#done) return;
    const all = this.asker.candidates(this.model, this.#asked);
    const r = all.find((x) => machineOf(x) !== avoid) ?? all[0];
    if (r) return this.#send(r, ms, false);
    // Every replica failed or none is ready: they may come back while the budget lasts.
    if (this.#outstanding === 0) {
      this.#asked.clear();
      this.#retry = setTimeout(() => this.#tryOne(ms, avoid), retryMs);
    }
  }

  #send(r: Replica, ms: () => number, hedged: boolean): void {
    this.#asked.add(r);
    this.#outstanding++;
    r.inFlight++;
    void this.#askReplica(r).then((verdict) => ({ verdict }), (e: Error) => ({ error: e }))
      .then((o) => {
        this.#outstanding--;
        r.inFlight--;
        if ("verdict" in o) {
          return this.#settle({
            kind: "verdict",
            verdict: o.verdict,
            ms: ms(),
            replica: r.id,
            hedged,
          });
        }
        this.#lastError = `${r.id}: ${o.error.message}`;
        // The last question out failed: ask another (or, none left, the same again soon).
        if (this.#outstanding === 0) this.#tryOne(ms, machineOf(r));
      });
  }

  /**
   * One replica's verdict. Not cut when the race is decided (see the file's note); bounded at
   * twice the budget so a hung engine does not hold the request's memory for ever.
   */
  async #askReplica(r: Replica): Promise<JudgeVerdict> {
    const res = await fetch(`${r.apiBase}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${r.apiKey}` },
      body: this.body,
      signal: AbortSignal.timeout(Math.max(2 * this.budgetMs, 1000)),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`answered ${res.status}`);
    let content: unknown;
    try {
      content = JSON.parse(text)?.choices?.[0]?.message?.content;
    } catch {
      throw new Error("answered something that is not JSON");
    }
    const verdict = typeof content === "string" ? this.format.parse(content) : null;
    if (!verdict) throw new Error(`answered no ${this.format.name} verdict`);
    return verdict;
  }
}
