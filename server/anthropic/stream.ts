/**
 * An OpenAI chat completion stream turned into Anthropic's event sequence: message_start, then
 * for each content block content_block_start / _delta / _stop, then message_delta with the stop
 * reason and usage, then message_stop. Whatever one engine read brings goes out as one write, as
 * the relay does; a stream the engine breaks ends with Anthropic's `error` event.
 */
import { isRecord } from "../router/json_fields.ts";
import { type EventTranslator, translatedStream } from "../router/translated_stream.ts";
import { anthropicErrorBody } from "./error_body.ts";
import {
  type AnthropicUsage,
  type MessageContext,
  reasoningOf,
  stopOf,
  thinkingSignature,
  usageOf,
} from "./response.ts";

type Json = Record<string, unknown>;
type BlockKind = "text" | "thinking" | "tool_use";

/** The translation itself, one OpenAI chunk at a time; it knows nothing of bytes or streams. */
export class StreamTranslator implements EventTranslator {
  #out: string[] = [];
  #started = false;
  #ended = false;
  /** The open content block: its kind, its index, and for tool_use the OpenAI tool index. */
  #open: { kind: BlockKind; index: number; tool?: number } | undefined;
  #blocks = 0;
  /** The open thinking block's text, for its signature. */
  #thinking = "";
  /** OpenAI tool call index → Anthropic block index, for argument fragments. */
  #toolBlocks = new Map<number, number>();
  #finish: unknown = null;
  #engineStop: unknown = null;
  #usage: AnthropicUsage | undefined;

  constructor(readonly ctx: MessageContext) {}

  /** One parsed `data:` payload of the OpenAI stream. */
  push(data: string): void {
    if (this.#ended) return;
    this.#start();
    if (data === "[DONE]") return this.end();
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      return;
    }
    if (!isRecord(chunk)) return;
    if (isRecord(chunk.error)) {
      const message = typeof chunk.error.message === "string"
        ? chunk.error.message
        : "the engine failed";
      return this.fail(message);
    }
    if (isRecord(chunk.usage)) this.#usage = usageOf(chunk);
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    for (const choice of choices) {
      if (!isRecord(choice) || (choice.index ?? 0) !== 0) continue;
      const delta = isRecord(choice.delta) ? choice.delta : {};
      const reasoning = reasoningOf(delta);
      if (reasoning && this.ctx.thinking) {
        this.#delta("thinking", { type: "thinking_delta", thinking: reasoning });
      }
      if (typeof delta.content === "string" && delta.content !== "") {
        this.#delta("text", { type: "text_delta", text: delta.content });
      }
      if (Array.isArray(delta.tool_calls)) {
        for (const call of delta.tool_calls) if (isRecord(call)) this.#toolDelta(call);
      }
      if (choice.finish_reason !== null && choice.finish_reason !== undefined) {
        this.#finish = choice.finish_reason;
        this.#engineStop = choice.stop_reason ?? null;
      }
    }
  }

  /** The engine's stream is over: close the open block and the message. */
  end(): void {
    if (this.#ended) return;
    this.#start();
    this.#close();
    const stop = stopOf(
      this.#finish,
      this.#engineStop,
      this.ctx.stopSequences,
      this.#toolBlocks.size,
    );
    const usage = this.#usage ?? { input_tokens: 0, output_tokens: 0 };
    this.#emit("message_delta", { type: "message_delta", delta: stop, usage });
    this.#emit("message_stop", { type: "message_stop" });
    this.#ended = true;
  }

  /** The stream broke: Anthropic's clients raise on an `error` event. */
  fail(message: string): void {
    if (this.#ended) return;
    this.#start();
    this.#emit("error", anthropicErrorBody(502, message));
    this.#ended = true;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** The events produced since the last take, as SSE text. */
  take(): string {
    const text = this.#out.join("");
    this.#out = [];
    return text;
  }

  #start() {
    if (this.#started) return;
    this.#started = true;
    this.#emit("message_start", {
      type: "message_start",
      message: {
        id: this.ctx.id,
        type: "message",
        role: "assistant",
        model: this.ctx.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        // OpenAI streams report usage at the end; message_delta carries the real counts.
        usage: { input_tokens: 0, output_tokens: 0 },
      },
    });
  }

  #delta(kind: "text" | "thinking", delta: Json) {
    if (kind === "thinking") this.#thinking += String(delta.thinking ?? "");
    if (this.#open?.kind !== kind) {
      this.#close();
      const block = kind === "text"
        ? { type: "text", text: "" }
        : { type: "thinking", thinking: "", signature: "" };
      this.#openBlock(kind, block);
    }
    this.#emit("content_block_delta", {
      type: "content_block_delta",
      index: this.#open!.index,
      delta,
    });
  }

  /** The first fragment of a call carries its id and name; later ones carry argument text. */
  #toolDelta(call: Json) {
    const tool = typeof call.index === "number" ? call.index : 0;
    const fn = isRecord(call.function) ? call.function : {};
    let index = this.#toolBlocks.get(tool);
    if (index === undefined) {
      this.#close();
      const id = typeof call.id === "string" && call.id ? call.id : `toolu_${this.ctx.id}_${tool}`;
      const name = typeof fn.name === "string" ? fn.name : "";
      index = this.#openBlock("tool_use", { type: "tool_use", id, name, input: {} }, tool);
      this.#toolBlocks.set(tool, index);
    }
    if (typeof fn.arguments === "string" && fn.arguments !== "") {
      this.#emit("content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json: fn.arguments },
      });
    }
  }

  #openBlock(kind: BlockKind, block: Json, tool?: number): number {
    const index = this.#blocks++;
    this.#open = tool === undefined ? { kind, index } : { kind, index, tool };
    this.#emit("content_block_start", { type: "content_block_start", index, content_block: block });
    return index;
  }

  #close() {
    if (!this.#open) return;
    if (this.#open.kind === "thinking") {
      // As Anthropic does: the block's signature comes last, just before it closes.
      this.#emit("content_block_delta", {
        type: "content_block_delta",
        index: this.#open.index,
        delta: { type: "signature_delta", signature: thinkingSignature(this.#thinking) },
      });
      this.#thinking = "";
    }
    this.#emit("content_block_stop", { type: "content_block_stop", index: this.#open.index });
    this.#open = undefined;
  }

  #emit(event: string, data: unknown) {
    this.#out.push(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }
}

/** The relay's OpenAI event stream as an Anthropic event stream; cancelling it cancels the relay. */
export function translateStream(
  source: ReadableStream<Uint8Array>,
  ctx: MessageContext,
): ReadableStream<Uint8Array> {
  return translatedStream(source, new StreamTranslator(ctx));
}
