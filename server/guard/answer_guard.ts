/**
 * The relay's one hook on an answer. A whole answer is checked whole: output rules on each text,
 * then the client's values put back for the placeholders. A stream is checked at token
 * boundaries on what has been sent so far, each time the relay writes; a block ends it with an
 * error event (no [DONE]). Where an output rule can redact or block, the last `streamHold`
 * characters of each part are held back, so a value is whole (and replaced) before any of it goes
 * out; they follow at the part's end. A placeholder split across two chunks is held until whole.
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

/**
 * How far a stream runs behind the model where an output rule redacts or blocks, in characters:
 * every built-in finder (secrets, cards, IBANs, e-mail addresses, phone numbers) matches within
 * its value's first 64, and a match that then grows is held until it ends.
 */
export const streamHold = 64;

/** One stream's output checks and restore, fed the whole events of each relay write. */
export class StreamGuard {
  /** What each part of each choice has said so far, as the model said it. */
  readonly #said = new Map<string, string>();
  /** How much of each part's normalised text has gone out (redacted), under the hold. */
  readonly #sent = new Map<string, number>();
  /** The parts with text held back under the hold. */
  readonly #unsent = new Set<string>();
  /** The last chunk's id, model and time, for the chunks that carry what was held. */
  #frame: Rec = { object: "chat.completion.chunk" };
  /** The tail of each part held back: it may be the start of a placeholder. */
  readonly #held = new Map<string, string>();
  readonly #checks: boolean;
  /** An output rule could redact or block: what is said is held back `streamHold` characters. */
  readonly #holds: boolean;
  readonly #services: boolean;
  /** Under `stream: buffer_all`: what is held until the answer is whole and checked. */
  #whole: string | undefined;

  constructor(readonly pass: GuardPass) {
    this.#checks = pass.policies.some((p) => p.output);
    this.#holds = pass.policies.some((p) => p.output && p.rules.some((r) => r.action !== "flag"));
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
    if (data === "[DONE]") {
      const rest = this.#flushAll();
      return rest === null ? null : rest + ev + "\n\n";
    }
    const chunk = data === undefined ? undefined : safeParse(data);
    if (!isRec(chunk) || !Array.isArray(chunk.choices)) return ev + "\n\n";
    this.#frame = {
      id: chunk.id,
      object: chunk.object,
      created: chunk.created,
      model: chunk.model,
    };
    let before = "";
    const touched: string[] = [];
    for (const ch of chunk.choices) {
      if (!isRec(ch)) continue;
      const i = typeof ch.index === "number" ? ch.index : 0;
      const ends = ch.finish_reason != null;
      const parts = choiceParts(ch, i);
      // What another part of this choice holds came first: it goes out before this chunk.
      // (A chunk with no text that does not end the choice releases nothing: a role or usage.)
      const others = parts.length || ends
        ? this.#flushChoice(chunk, i, new Set(parts.map((p) => p.key)))
        : "";
      if (others === null) return null;
      before += others;
      for (const part of parts) {
        const out = this.#part(part.key, part.text, part.json, touched, ends);
        if (out === null) return null;
        part.set(out);
      }
    }
    if (this.#checks && !this.#checked(touched)) return null;
    return before + `data: ${JSON.stringify(chunk)}\n\n`;
  }

  /**
   * One part's new text: noted for the checks, released as far as the hold allows (redacted),
   * restored, with a possible placeholder's start held. `last`: the part ends with it. Null when
   * a rule blocked the answer.
   */
  #part(key: string, text: string, json: boolean, touched: string[], last: boolean): string | null {
    if (this.#checks) {
      this.#said.set(key, (this.#said.get(key) ?? "") + text);
      if (!this.#holds) touched.push(key);
    }
    const released = this.#holds ? this.#release(key, last) : text;
    if (released === null) return null;
    if (!this.pass.restoring) return released;
    let raw = (this.#held.get(key) ?? "") + released;
    let held = "";
    const open = raw.lastIndexOf("[");
    if (
      !last && open >= 0 && !raw.includes("]", open) &&
      this.pass.mayStartPlaceholder(raw.slice(open))
    ) {
      held = raw.slice(open);
      raw = raw.slice(0, open);
    }
    this.#held.set(key, held);
    return this.pass.restoreIn(raw, json);
  }

  /**
   * What of a part can go out now: the rules run over all it has said, and what lies more than
   * `streamHold` characters back, outside a value still being said, goes out with its values
   * replaced. A value found only after its start went out has its rest replaced. Null: blocked.
   */
  #release(key: string, last: boolean): string | null {
    const found = this.pass.scan(this.#said.get(key) ?? "", "output");
    if (found === null) return null;
    const { norm, spans } = found;
    let at = this.#sent.get(key) ?? 0;
    let limit = last ? norm.length : Math.max(at, norm.length - streamHold);
    // Spans are merged and in order: the first that runs past the limit holds from its start.
    for (const s of spans) {
      if (s.start < limit && s.end > limit) {
        limit = Math.max(at, s.start);
        break;
      }
    }
    let out = "";
    for (const s of spans) {
      if (s.end <= at || s.start >= limit) continue;
      out += norm.slice(at, Math.max(at, s.start)) +
        this.pass.outputPlaceholder(s.label, norm.slice(s.start, s.end));
      at = s.end;
    }
    if (limit > at) {
      out += norm.slice(at, limit);
      at = limit;
    }
    this.#sent.set(key, at);
    if (at < norm.length) this.#unsent.add(key);
    else this.#unsent.delete(key);
    return out;
  }

  /** The output rules over what each touched part has said so far (parts not held back). */
  #checked(touched: string[]): boolean {
    for (const k of touched) this.pass.check(this.#said.get(k)!, "output");
    return !this.pass.blocked;
  }

  /**
   * Chunks carrying what the parts of choice `i` (but `except`) still hold, each released whole:
   * sent before the chunk that ends the choice, or before another part of it goes on. Null when
   * a rule blocked the answer.
   */
  #flushChoice(chunk: Rec, i: number, except: ReadonlySet<string> = new Set()): string | null {
    let out = "";
    for (const k of this.#keys) {
      if (!k.startsWith(`${i}:`) || except.has(k) || !this.#holding(k)) continue;
      const held = this.#part(k, "", k.includes(":tool:"), [], true);
      if (held === null) return null;
      if (!held) continue;
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

  /** Every part this stream has had. */
  get #keys(): Set<string> {
    return new Set([...this.#said.keys(), ...this.#held.keys()]);
  }

  /** Whether part `k` has text not yet sent. */
  #holding(k: string): boolean {
    return !!this.#held.get(k) || this.#unsent.has(k);
  }

  #flushAll(): string | null {
    const indexes = new Set(
      [...this.#keys].filter((k) => this.#holding(k)).map((k) => Number(k.split(":")[0])),
    );
    let out = "";
    for (const i of indexes) {
      const rest = this.#flushChoice(this.#frame, i);
      if (rest === null) return null;
      out += rest;
    }
    return out;
  }
}

interface ChoicePart {
  key: string;
  text: string;
  /** The text sits in a JSON string (tool-call arguments): placeholders are put back escaped. */
  json: boolean;
  set: (text: string) => void;
}

/** The texts one streamed choice carries, each with its part's key and a way to replace it. */
function choiceParts(ch: Rec, i: number): ChoicePart[] {
  const out: ChoicePart[] = [];
  if (typeof ch.text === "string") {
    out.push({ key: `${i}:text`, text: ch.text, json: false, set: (t) => ch.text = t });
  }
  const d = isRec(ch.delta) ? ch.delta : undefined;
  if (!d) return out;
  for (const f of ["content", "reasoning_content", "reasoning"] as const) {
    const t = d[f];
    if (typeof t === "string") {
      out.push({
        key: `${i}:${f}`,
        text: t,
        json: false,
        set: (v) => d[f] = v,
      });
    }
  }
  if (Array.isArray(d.tool_calls)) {
    for (const call of d.tool_calls) {
      if (!isRec(call) || !isRec(call.function)) continue;
      const fn = call.function;
      const args = fn.arguments;
      const k = `${i}:tool:${typeof call.index === "number" ? call.index : 0}`;
      if (typeof args === "string") {
        out.push({ key: k, text: args, json: true, set: (t) => fn.arguments = t });
      }
    }
  }
  return out;
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
