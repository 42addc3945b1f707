/**
 * The relay's one hook on an answer. A whole answer is checked whole: output rules on each text,
 * then the client's values put back for the placeholders. A stream is checked at token
 * boundaries on what has been sent so far, each time the relay writes; a block ends it with an
 * error event (no [DONE]). A placeholder split across two chunks is held back until it is whole.
 * Outside services read a whole answer: on a stream they can stop it only when a policy says
 * `stream: buffer_all` (the stream is held whole, checked, then sent); otherwise they are asked
 * at its end, when it has gone out, and can only flag it.
 */
import { errorBody } from "../errors.ts";
import type { GuardPass } from "./guard_pass.ts";
import { mapAnswerTexts } from "./request_parts.ts";
import { answerText } from "./guard.ts";
import { askServices, asksServices } from "./service_calls.ts";
import { judgeSaid } from "./judge/judge_step.ts";

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);

/** A whole (non-streamed) answer's text, checked and restored; `blocked` when a rule blocked it. */
export function guardWholeAnswer(
  pass: GuardPass,
  text: string,
): { text: string; blocked: boolean } {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    return { text, blocked: false };
  }
  if (!isRec(answer)) return { text, blocked: false };
  const out = mapAnswerTexts(answer, (t, json) => {
    const checked = pass.check(t, "output");
    return pass.restoring ? pass.restoreIn(checked, json) : checked;
  });
  if (pass.blocked) return { text: "", blocked: true };
  return { text: out === answer ? text : JSON.stringify(out), blocked: false };
}

/** The outside services on a whole answer, as the model said it (placeholders, not values). */
export async function askAnswerServices(pass: GuardPass, text: string): Promise<void> {
  if (pass.blocked || !asksServices(pass, "output")) return;
  const answer = safeParse(text);
  if (isRec(answer)) await askServices(pass, "output", answerText(answer));
}

/** One stream's output checks and restore, fed the whole events of each relay write. */
export class StreamGuard {
  /** What each part of each choice has said so far, as the model said it. */
  readonly #said = new Map<string, string>();
  /** The tail of each part held back: it may be the start of a placeholder. */
  readonly #held = new Map<string, string>();
  readonly #checks: boolean;
  readonly #services: boolean;
  /** Under `stream: buffer_all`: what is held until the answer is whole and checked. */
  #whole: string | undefined;

  constructor(readonly pass: GuardPass) {
    this.#checks = pass.policies.some((p) => p.output);
    this.#services = asksServices(pass, "output");
    if (pass.policies.some((p) => p.output && p.bufferAll)) this.#whole = "";
  }

  /** The events to send for `text` (whole events); `cut` when a rule blocked the answer. */
  async events(text: string): Promise<{ text: string; cut: boolean }> {
    let out = "";
    for (const ev of text.split("\n\n")) {
      if (ev === "") continue;
      const done = dataOf(ev) === "[DONE]";
      if (done) await this.#askAtEnd();
      const r = this.pass.blocked ? null : this.#event(ev);
      if (r === null) return { text: this.#blockEvent(), cut: true };
      if (this.#whole === undefined) out += r;
      else if (done) out += this.#take() + r;
      else if (isErrorEvent(ev)) {
        // The engine broke off: an answer never whole is not sent; its error is.
        this.#whole = "";
        out += r;
      } else this.#whole += r;
    }
    return { text: out, cut: false };
  }

  /** The engine's stream ended without [DONE]: a held answer is checked and sent now. */
  async end(): Promise<{ text: string; cut: boolean }> {
    if (!this.#whole) return { text: "", cut: false };
    await this.#askAtEnd();
    if (this.pass.blocked) return { text: this.#blockEvent(), cut: true };
    return { text: this.#take(), cut: false };
  }

  #take(): string {
    const whole = this.#whole ?? "";
    this.#whole = "";
    return whole;
  }

  /** The error that ends a blocked answer; nothing held is sent with it. */
  #blockEvent(): string {
    if (this.#whole !== undefined) this.#whole = "";
    return `data: ${JSON.stringify(errorBody(this.pass.blockError()))}\n\n`;
  }

  /**
   * The services on all the answer said, once, at its end; held whole, they may stop it. A judge
   * only when it is held whole: judging what was already sent could stop nothing.
   */
  async #askAtEnd(): Promise<void> {
    const said = [...this.#said.values()].join("\n\n");
    if (this.#services) await askServices(this.pass, "output", said, this.#whole === undefined);
    if (this.#whole !== undefined) await judgeSaid(this.pass, said);
  }

  /** One event as sent, or null when it is blocked. */
  #event(ev: string): string | null {
    const data = dataOf(ev);
    if (data === "[DONE]") return this.#flushAll() + ev + "\n\n";
    const chunk = data === undefined ? undefined : safeParse(data);
    if (!isRec(chunk) || !Array.isArray(chunk.choices)) return ev + "\n\n";
    let before = "";
    const touched: string[] = [];
    for (const ch of chunk.choices) {
      if (!isRec(ch)) continue;
      const i = typeof ch.index === "number" ? ch.index : 0;
      if (typeof ch.text === "string") ch.text = this.#part(`${i}:text`, ch.text, false, touched);
      const d = isRec(ch.delta) ? ch.delta : undefined;
      if (d) {
        for (const f of ["content", "reasoning_content", "reasoning"] as const) {
          if (typeof d[f] === "string") d[f] = this.#part(`${i}:${f}`, d[f], false, touched);
        }
        if (Array.isArray(d.tool_calls)) {
          for (const call of d.tool_calls) {
            if (!isRec(call) || !isRec(call.function)) continue;
            const args = call.function.arguments;
            const k = `${i}:tool:${typeof call.index === "number" ? call.index : 0}`;
            if (typeof args === "string") {
              call.function.arguments = this.#part(k, args, true, touched);
            }
          }
        }
      }
      if (ch.finish_reason != null) before += this.#flushChoice(chunk, i);
    }
    if (this.#checks && !this.#checked(touched)) return null;
    return before + `data: ${JSON.stringify(chunk)}\n\n`;
  }

  /** One part's new text: noted for the checks, restored, with a possible placeholder's start held. */
  #part(key: string, text: string, json: boolean, touched: string[]): string {
    if (this.#checks) {
      this.#said.set(key, (this.#said.get(key) ?? "") + text);
      touched.push(key);
    }
    if (!this.pass.restoring) return text;
    let raw = (this.#held.get(key) ?? "") + text;
    let held = "";
    const open = raw.lastIndexOf("[");
    if (open >= 0 && !raw.includes("]", open) && this.pass.mayStartPlaceholder(raw.slice(open))) {
      held = raw.slice(open);
      raw = raw.slice(0, open);
    }
    this.#held.set(key, held);
    return this.pass.restoreIn(raw, json);
  }

  /** The output rules over what each touched part has said so far. */
  #checked(touched: string[]): boolean {
    for (const k of touched) this.pass.check(this.#said.get(k)!, "output");
    return !this.pass.blocked;
  }

  /** A chunk, before the one that ends choice `i`, carrying what was held back of it. */
  #flushChoice(chunk: Rec, i: number): string {
    let out = "";
    for (const [k, held] of this.#held) {
      if (!held || !k.startsWith(`${i}:`)) continue;
      this.#held.set(k, "");
      const [, field, tool] = k.split(":");
      const delta = field === "tool"
        ? { tool_calls: [{ index: Number(tool), function: { arguments: held } }] }
        : { [field!]: held };
      const choice = field === "text"
        ? { index: i, text: held, finish_reason: null }
        : { index: i, delta, finish_reason: null };
      out += `data: ${JSON.stringify({ ...chunk, choices: [choice], usage: undefined })}\n\n`;
    }
    return out;
  }

  #flushAll(): string {
    const left = [...this.#held.values()].some((h) => h);
    if (!left) return "";
    const indexes = new Set([...this.#held.keys()].map((k) => Number(k.split(":")[0])));
    return [...indexes].map((i) => this.#flushChoice({ object: "chat.completion.chunk" }, i))
      .join("");
  }
}

function isErrorEvent(ev: string): boolean {
  const data = dataOf(ev);
  const body = data === undefined ? undefined : safeParse(data);
  return isRec(body) && "error" in body && !("choices" in body);
}

function dataOf(ev: string): string | undefined {
  const lines = ev.split("\n").filter((l) => l.startsWith("data:"));
  if (lines.length === 0) return undefined;
  return lines.map((l) => l.slice(l.startsWith("data: ") ? 6 : 5)).join("\n");
}

function safeParse(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}
