/**
 * The simulated engine's judge mode: it plays a guard model of one family, answering every chat
 * request with a verdict in that family's words (core/judge_formats.ts) instead of generated
 * text. The test chooses the verdict (unsafe when the last turn holds one of its words) and
 * how long the judge thinks, so CI tests judges, their budgets and hedging without a real model.
 */
import type { Context } from "hono";
import { judgeFormat, type JudgeFormatName } from "../../core/judge_formats.ts";
import type { Engine } from "./engine.ts";
import { chatCompletion, errorBody, newMeta, usage } from "./openai_shapes.ts";
import { countTokens } from "./generate.ts";
import type { Timings } from "./inference.ts";

export interface SimJudgeOptions {
  format: JudgeFormatName;
  /** Words that make the verdict unsafe when the last turn holds one (any case). */
  unsafeWhen: readonly string[];
  /** How long each verdict takes, in ms. */
  delayMs: number;
}

type Rec = Record<string, unknown>;

export function judgeHandler(engine: Engine, judge: SimJudgeOptions) {
  const format = judgeFormat(judge.format);
  const words = judge.unsafeWhen.map((w) => w.toLowerCase()).filter(Boolean);
  return async (c: Context): Promise<Response> => {
    let body: Rec;
    try {
      body = await c.req.json();
    } catch {
      return c.json(errorBody("the body is not JSON"), 400);
    }
    const messages = Array.isArray(body.messages) ? body.messages as Rec[] : [];
    // As a guard model does: the last turn is judged (a question, or the answer to it).
    const last = messages.at(-1)?.content;
    const text = typeof last === "string" ? last : "";
    const waitedOut = await waited(judge.delayMs, [engine.shutdown, c.req.raw.signal]);
    if (!waitedOut) {
      // Counted, as a generation the client gave up on is: a test sees whether a judge was cut.
      engine.counters.cancelled++;
      return c.json(errorBody("the request ended first", { type: "unavailable_error" }), 503);
    }
    const lower = text.toLowerCase();
    const unsafe = words.some((w) => lower.includes(w));
    const answer = format.render({ unsafe, categories: [] });
    engine.counters.requests++;
    const model = typeof body.model === "string" ? body.model : engine.model;
    return c.json(chatCompletion(
      newMeta("chatcmpl", model),
      [{ text: answer, finish: "stop" }],
      usage(countTokens(text), countTokens(answer)),
      timings(countTokens(text), countTokens(answer), judge.delayMs),
    ));
  };
}

/** False when one of `signals` (the engine's shutdown, the client going away) came first. */
function waited(ms: number, signals: AbortSignal[]): Promise<boolean> {
  if (signals.some((s) => s.aborted)) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(t);
      for (const s of signals) s.removeEventListener("abort", stop);
      resolve(ok);
    };
    const stop = () => done(false);
    const t = setTimeout(() => done(true), ms);
    for (const s of signals) s.addEventListener("abort", stop);
  });
}

function timings(prompt: number, predicted: number, ms: number): Timings {
  const perToken = predicted ? ms / predicted : 0;
  return {
    prompt_n: prompt,
    prompt_ms: 0,
    prompt_per_token_ms: 0,
    prompt_per_second: 0,
    predicted_n: predicted,
    predicted_ms: ms,
    predicted_per_token_ms: perToken,
    predicted_per_second: perToken ? 1000 / perToken : 0,
  };
}
