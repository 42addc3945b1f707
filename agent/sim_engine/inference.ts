/**
 * One generation request on the engine: wait for a slot, "process" the prompt, then decode all
 * choices in lockstep at the configured speed. Events come out as they happen so the same run
 * serves streamed and non-streamed responses. Aborting the signal stops it at the next tick.
 */
import type { Engine } from "./engine.ts";
import { mixSeed, tokenStream } from "./generate.ts";
import { Pacer, sleep } from "./pace.ts";
import { type PromptPrefix, reusable } from "./prompt_cache.ts";
import type { Slot } from "./slots.ts";

export type FinishReason = "stop" | "length";

export interface Job {
  promptTokens: number;
  /** One seed per choice; choices decode side by side in one slot. */
  seeds: number[];
  /** Per choice, like OpenAI's max_tokens. */
  maxTokens: number;
  stop: string[];
  /** Fixed answers (tool arguments, JSON) as tokens, per choice; the choice ends where it does. */
  scripts?: (string[] | undefined)[] | undefined;
  /** Tokens of reasoning each choice thinks before answering, as a thinking model would. */
  reasoningTokens?: number | undefined;
  /** The prompt as the slot's cache sees it; absent: nothing is reused. */
  prefix?: PromptPrefix | undefined;
  /** llama-server's `id_slot`: the slot to run in. */
  slotId?: number | undefined;
}

/** llama-server's `timings` object. */
export interface Timings {
  prompt_n: number;
  prompt_ms: number;
  prompt_per_token_ms: number;
  prompt_per_second: number;
  predicted_n: number;
  predicted_ms: number;
  predicted_per_token_ms: number;
  predicted_per_second: number;
}

export type JobEvent =
  /** A slot is held and the prompt is processed: the moment to send response headers. */
  | { type: "start" }
  /** `reasoning` only when the step produced some: thinking comes before the answer. */
  | { type: "delta"; index: number; text: string; reasoning?: string }
  | { type: "finish"; index: number; reason: FinishReason }
  | { type: "end"; completionTokens: number; timings: Timings };

export async function* runJob(
  engine: Engine,
  job: Job,
  signal: AbortSignal,
): AsyncGenerator<JobEvent> {
  const { pool, counters } = engine;
  counters.requests++;
  let slot: Slot;
  try {
    slot = await pool.acquire(signal, {
      ...(job.prefix ? { prompt: job.prefix, promptTokens: job.promptTokens } : {}),
      ...(job.slotId !== undefined ? { slotId: job.slotId } : {}),
    });
  } catch (e) {
    counters.cancelled++;
    throw e;
  }
  let promptMs = 0;
  let genStart = 0;
  let timings: Timings | undefined;
  const budget = Math.min(job.maxTokens, slot.nCtx - job.promptTokens);
  // Only what the slot's cache does not hold is computed, as llama-server's `prompt_n` reports.
  const computed = job.promptTokens -
    (job.prefix ? reusable(slot.cached, job.prefix, job.promptTokens) : 0);
  if (job.prefix) slot.cached = job.prefix;
  try {
    slot.promptTokens = job.promptTokens;
    slot.nPredict = budget;
    const t0 = performance.now();
    const promptWait = (computed * 1000) / engine.promptTokensPerSecond;
    if (promptWait >= 1) await sleep(promptWait, signal);
    promptMs = performance.now() - t0;
    counters.prompt(computed, promptMs);
    yield { type: "start" };

    genStart = performance.now();
    const choices = job.seeds.map((seed, i) =>
      new Choice(seed, job.stop, budget, {
        script: job.scripts?.[i],
        reasoningTokens: job.reasoningTokens,
      })
    );
    const pacer = new Pacer(engine.tokensPerSecond);
    while (choices.some((ch) => !ch.finish)) {
      const due = await pacer.next(signal);
      const step: JobEvent[] = [];
      let produced = 0;
      for (const [index, ch] of choices.entries()) {
        if (ch.finish) continue;
        produced += ch.advance(due);
        const reasoning = ch.takeReasoning();
        const text = ch.take();
        if (reasoning) step.push({ type: "delta", index, text, reasoning });
        else if (text) step.push({ type: "delta", index, text });
        if (ch.finish) step.push({ type: "finish", index, reason: ch.finish });
      }
      slot.decoded += produced;
      counters.decode(produced, pool.processing);
      yield* step;
    }
    const predicted = slot.decoded;
    const predictedMs = performance.now() - genStart;
    timings = {
      prompt_n: computed,
      prompt_ms: promptMs,
      prompt_per_token_ms: computed > 0 ? promptMs / computed : 0,
      prompt_per_second: promptMs > 0 ? (computed * 1000) / promptMs : 0,
      predicted_n: predicted,
      predicted_ms: predictedMs,
      predicted_per_token_ms: predicted > 0 ? predictedMs / predicted : 0,
      predicted_per_second: predictedMs > 0 ? (predicted * 1000) / predictedMs : 0,
    };
  } finally {
    if (genStart > 0) counters.generationTime(performance.now() - genStart);
    // Reached on completion, on abort, and when the consumer walks away (generator return).
    if (!timings) counters.cancelled++;
    pool.release(slot);
  }
  // After the slot is freed, so a consumer that stops reading here holds nothing.
  yield { type: "end", completionTokens: timings.predicted_n, timings };
}

/** One choice's text, cut at the first stop string, released only when no stop can still match. */
export class Choice {
  readonly #tokens: Iterator<string, unknown>;
  readonly #thoughts: Iterator<string, never>;
  readonly #longestStop: number;
  #reasoningLeft: number;
  text = "";
  emitted = 0;
  reasoning = "";
  #reasoningEmitted = 0;
  count = 0;
  finish: FinishReason | null = null;

  constructor(
    seed: number,
    readonly stop: string[],
    readonly budget: number,
    opts: { script?: string[] | undefined; reasoningTokens?: number | undefined } = {},
  ) {
    this.#tokens = opts.script ? opts.script[Symbol.iterator]() : tokenStream(seed);
    this.#thoughts = tokenStream(mixSeed(seed, 0x7417));
    this.#reasoningLeft = opts.reasoningTokens ?? 0;
    // A fixed answer (a tool call's arguments, JSON) is not cut by stop strings.
    this.#longestStop = opts.script ? 0 : Math.max(0, ...stop.map((s) => s.length));
    if (opts.script) this.stop = [];
    if (budget <= 0) this.finish = "length";
  }

  /** Adds up to `n` tokens; returns how many were used (a stop or the budget can end it early). */
  advance(n: number): number {
    let used = 0;
    while (used < n && !this.finish) {
      if (this.#reasoningLeft > 0) {
        this.#reasoningLeft--;
        this.reasoning += this.#thoughts.next().value;
        this.count++;
        used++;
        if (this.count >= this.budget) this.finish = "length";
        continue;
      }
      const next = this.#tokens.next();
      if (next.done) {
        this.finish = "stop";
        break;
      }
      const token = next.value as string;
      this.text += token;
      this.count++;
      used++;
      const at = this.#stopAt(token.length);
      if (at >= 0) {
        this.text = this.text.slice(0, at);
        this.finish = "stop";
      } else if (this.count >= this.budget) this.finish = "length";
    }
    return used;
  }

  /** Reasoning not yet handed out; it is never held back, since stops do not apply to it. */
  takeReasoning(): string {
    const out = this.reasoning.slice(this.#reasoningEmitted);
    this.#reasoningEmitted = this.reasoning.length;
    return out;
  }

  /** The text not yet handed out that is safe to hand out now. */
  take(): string {
    const end = this.finish ? this.text.length : this.#safeEnd();
    const out = this.text.slice(this.emitted, end);
    this.emitted = Math.max(this.emitted, end);
    return out;
  }

  /** Earliest stop match that the newest token could have completed, or -1. */
  #stopAt(tokenLength: number): number {
    const from = Math.max(0, this.text.length - tokenLength - this.#longestStop + 1);
    let best = -1;
    for (const s of this.stop) {
      const at = this.text.indexOf(s, from);
      if (at >= 0 && (best < 0 || at < best)) best = at;
    }
    return best;
  }

  /** End of the text short of any tail that could be the start of a stop string. */
  #safeEnd(): number {
    const n = this.text.length;
    for (let k = Math.min(this.#longestStop - 1, n); k > 0; k--) {
      const tail = this.text.slice(n - k);
      if (this.stop.some((s) => s.startsWith(tail))) return Math.max(this.emitted, n - k);
    }
    return n;
  }
}
