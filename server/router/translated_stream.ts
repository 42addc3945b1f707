/**
 * The one read-and-flush loop behind the API adapters that speak another event dialect over the
 * relay's OpenAI chat stream (Anthropic Messages, OpenAI Responses). Each adapter brings only its
 * translator; how bytes are read, parsed as SSE, flushed and ended is written here once.
 */
import { createParser } from "eventsource-parser";

/** What an adapter's translator does with one OpenAI chat stream. */
export interface EventTranslator {
  /** One parsed `data:` payload of the OpenAI stream (`[DONE]` included). */
  push(data: string): void;
  /** The engine's stream ended; a stream that ends without `[DONE]` still gets a proper end. */
  end(): void;
  /** The engine's stream broke: the dialect's own error event. */
  fail(message: string): void;
  /** The events produced since the last take, as SSE text. */
  take(): string;
}

const encoder = new TextEncoder();

/**
 * The relay's stream as the translator's stream; cancelling it cancels the relay. `beforeFlush`
 * runs before each write, so an adapter can act (store a finished response) before the event
 * that announces it goes out. Whatever one engine read brings goes out as one write, as the relay
 * does.
 */
export function translatedStream(
  source: ReadableStream<Uint8Array>,
  t: EventTranslator,
  beforeFlush: () => Promise<void> = () => Promise.resolve(),
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  const decoder = new TextDecoder();
  const parser = createParser({ onEvent: (ev) => t.push(ev.data) });
  const flush = async (ctrl: ReadableStreamDefaultController<Uint8Array>) => {
    await beforeFlush();
    const text = t.take();
    if (text !== "") ctrl.enqueue(encoder.encode(text));
    return text !== "";
  };
  return new ReadableStream<Uint8Array>({
    async pull(ctrl) {
      for (;;) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch {
          t.fail("the engine stopped mid-answer");
          await flush(ctrl);
          ctrl.close();
          return;
        }
        if (chunk.done) {
          parser.feed(decoder.decode());
          t.end();
          await flush(ctrl);
          ctrl.close();
          return;
        }
        // After the dialect's last event the relay's stream is still read to its end, not
        // cancelled, so its usage is recorded as a whole answer.
        parser.feed(decoder.decode(chunk.value, { stream: true }));
        if (await flush(ctrl)) return;
      }
    },
    cancel() {
      reader.cancel().catch(() => {});
    },
  });
}
