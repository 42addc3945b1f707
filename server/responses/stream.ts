/**
 * An OpenAI chat completion stream turned into the Responses API's event sequence, in the order
 * the OpenAI SDKs check: response.created, response.in_progress, then per output item
 * output_item.added, its parts and deltas, their .done events and output_item.done, then
 * response.completed (or response.incomplete) with usage; every event numbered. A stream the
 * engine breaks ends with an `error` event, which the SDKs raise.
 */
import { fileCitations } from "./file_search.ts";
import { isRecord } from "../router/json_fields.ts";
import { type EventTranslator, translatedStream } from "../router/translated_stream.ts";
import { reasoningOf } from "../anthropic/response.ts";
import {
  envelope,
  functionCallItem,
  messageItem,
  outputTextPart,
  reasoningItem,
  type ResponseContext,
  type ResponsesUsage,
  usageOf,
} from "./response.ts";

type Json = Record<string, unknown>;

interface OpenItem {
  kind: "message" | "reasoning" | "function_call";
  index: number;
  id: string;
  text: string;
  callId?: string;
  name?: string;
}

export class ResponsesStreamTranslator implements EventTranslator {
  #out: string[] = [];
  #seq = 0;
  #started = false;
  #ended = false;
  /** The message or reasoning item being written; function calls stay open apart. */
  #open: OpenItem | undefined;
  /** Chat tool index → its function_call item, open until the stream ends. */
  #calls = new Map<number, OpenItem>();
  #output: Json[] = [];
  #finish: unknown = null;
  #usage: ResponsesUsage | null = null;
  #final: Json | undefined;

  constructor(readonly ctx: ResponseContext) {}

  /** The finished response object, once the stream completed (what is stored). */
  get final(): Json | undefined {
    return this.#final;
  }

  get ended(): boolean {
    return this.#ended;
  }

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
      const { message: m, code } = chunk.error;
      // The gateway's own ending (a guardrail's block) keeps its code; an engine's is engine_error.
      return this.fail(
        typeof m === "string" ? m : "the engine failed",
        typeof code === "string" ? code : "engine_error",
      );
    }
    if (isRecord(chunk.usage)) this.#usage = usageOf(chunk);
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    for (const choice of choices) {
      if (!isRecord(choice) || (choice.index ?? 0) !== 0) continue;
      const delta = isRecord(choice.delta) ? choice.delta : {};
      const reasoning = reasoningOf(delta);
      if (reasoning && this.ctx.summary) this.#textDelta("reasoning", reasoning);
      if (typeof delta.content === "string" && delta.content !== "") {
        this.#textDelta("message", delta.content);
      }
      if (Array.isArray(delta.tool_calls)) {
        for (const call of delta.tool_calls) if (isRecord(call)) this.#toolDelta(call);
      }
      if (choice.finish_reason !== null && choice.finish_reason !== undefined) {
        this.#finish = choice.finish_reason;
      }
    }
  }

  end(): void {
    if (this.#ended) return;
    this.#start();
    this.#closeOpen();
    for (const call of this.#calls.values()) this.#closeCall(call);
    this.#calls.clear();
    const incomplete = this.#finish === "length";
    const output = [...this.#output];
    this.#final = envelope(
      this.ctx,
      incomplete ? "incomplete" : "completed",
      output,
      this.#usage ?? usageOf({}),
      { incomplete },
    );
    this.#emit(incomplete ? "response.incomplete" : "response.completed", {
      response: this.#final,
    });
    this.#ended = true;
  }

  fail(message: string, code = "engine_error"): void {
    if (this.#ended) return;
    this.#start();
    this.#emit("error", { code, message, param: null });
    this.#ended = true;
  }

  take(): string {
    const text = this.#out.join("");
    this.#out = [];
    return text;
  }

  #start() {
    if (this.#started) return;
    this.#started = true;
    const response = envelope(this.ctx, "in_progress", [], null);
    this.#emit("response.created", { response });
    this.#emit("response.in_progress", { response });
    // The search ran before the model: its item is whole from the start.
    const search = this.ctx.fileSearch?.item;
    if (search) {
      const index = this.#output.push(search) - 1;
      this.#emit("response.output_item.added", { output_index: index, item: search });
      this.#emit("response.output_item.done", { output_index: index, item: search });
    }
  }

  #textDelta(kind: "message" | "reasoning", delta: string) {
    if (this.#open?.kind !== kind) {
      this.#closeOpen();
      this.#open = this.#openItem(kind);
    }
    const item = this.#open;
    item.text += delta;
    const at = { item_id: item.id, output_index: item.index };
    if (kind === "message") {
      this.#emit("response.output_text.delta", { ...at, content_index: 0, delta, logprobs: [] });
    } else {
      this.#emit("response.reasoning_summary_text.delta", { ...at, summary_index: 0, delta });
    }
  }

  #openItem(kind: "message" | "reasoning"): OpenItem {
    const item: OpenItem = {
      kind,
      index: this.#output.length,
      id: this.ctx.newId(kind === "message" ? "msg" : "rs"),
      text: "",
    };
    this.#output.push({});
    const at = { item_id: item.id, output_index: item.index };
    if (kind === "message") {
      this.#emit("response.output_item.added", {
        output_index: item.index,
        item: messageItem(item.id, "", "in_progress"),
      });
      this.#emit("response.content_part.added", {
        ...at,
        content_index: 0,
        part: outputTextPart(""),
      });
    } else {
      this.#emit("response.output_item.added", {
        output_index: item.index,
        item: reasoningItem(item.id, null),
      });
      this.#emit("response.reasoning_summary_part.added", {
        ...at,
        summary_index: 0,
        part: { type: "summary_text", text: "" },
      });
    }
    return item;
  }

  #closeOpen() {
    const item = this.#open;
    if (!item) return;
    this.#open = undefined;
    const at = { item_id: item.id, output_index: item.index };
    let done: Json;
    if (item.kind === "message") {
      this.#emit("response.output_text.done", {
        ...at,
        content_index: 0,
        text: item.text,
        logprobs: [],
      });
      const annotations = fileCitations(item.text, this.ctx.fileSearch?.results ?? []);
      this.#emit("response.content_part.done", {
        ...at,
        content_index: 0,
        part: outputTextPart(item.text, annotations),
      });
      done = messageItem(item.id, item.text, "completed", annotations);
    } else {
      this.#emit("response.reasoning_summary_text.done", {
        ...at,
        summary_index: 0,
        text: item.text,
      });
      this.#emit("response.reasoning_summary_part.done", {
        ...at,
        summary_index: 0,
        part: { type: "summary_text", text: item.text },
      });
      done = reasoningItem(item.id, item.text);
    }
    this.#output[item.index] = done;
    this.#emit("response.output_item.done", { output_index: item.index, item: done });
  }

  /** The first fragment of a call carries its id and name; later ones carry argument text. */
  #toolDelta(call: Json) {
    const tool = typeof call.index === "number" ? call.index : 0;
    const fn = isRecord(call.function) ? call.function : {};
    let item = this.#calls.get(tool);
    if (!item) {
      this.#closeOpen();
      item = {
        kind: "function_call",
        index: this.#output.length,
        id: this.ctx.newId("fc"),
        text: "",
        callId: typeof call.id === "string" && call.id ? call.id : this.ctx.newId("call"),
        name: typeof fn.name === "string" ? fn.name : "",
      };
      this.#output.push({});
      this.#calls.set(tool, item);
      this.#emit("response.output_item.added", {
        output_index: item.index,
        item: functionCallItem(item.id, item.callId!, item.name!, "", "in_progress"),
      });
    }
    if (typeof fn.arguments === "string" && fn.arguments !== "") {
      item.text += fn.arguments;
      this.#emit("response.function_call_arguments.delta", {
        item_id: item.id,
        output_index: item.index,
        delta: fn.arguments,
      });
    }
  }

  #closeCall(item: OpenItem) {
    this.#emit("response.function_call_arguments.done", {
      item_id: item.id,
      output_index: item.index,
      name: item.name,
      arguments: item.text,
    });
    const done = functionCallItem(item.id, item.callId!, item.name!, item.text, "completed");
    this.#output[item.index] = done;
    this.#emit("response.output_item.done", { output_index: item.index, item: done });
  }

  #emit(type: string, fields: Json) {
    const data = { type, sequence_number: this.#seq++, ...fields };
    this.#out.push(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
  }
}

/**
 * The relay's chat event stream as a Responses event stream; cancelling it cancels the relay.
 * `onCompleted` gets the finished response (to store it) before the stream closes.
 */
export function translateStream(
  source: ReadableStream<Uint8Array>,
  ctx: ResponseContext,
  onCompleted: (response: Json) => Promise<void>,
): ReadableStream<Uint8Array> {
  const t = new ResponsesStreamTranslator(ctx);
  let stored = false;
  // Stored before response.completed goes out, so a client's next turn finds it.
  const storeFinished = async () => {
    if (t.final && !stored) {
      stored = true;
      await onCompleted(t.final);
    }
  };
  return translatedStream(source, t, storeFinished);
}
