/**
 * Counts a streamed completion's events without parsing each one: a benchmark client must cost
 * far less than what it measures. Only the rare event that carries usage is parsed as JSON.
 */

export class SseCounter {
  /** Events with generated content (every `data:` event but `[DONE]` and a usage-only chunk). */
  contentEvents = 0;
  /** `data: [DONE]` was seen: the stream ended the way OpenAI's streams end. */
  done = false;
  /** completion_tokens from a usage chunk, when the server sent one. */
  completionTokens: number | null = null;
  /** An `error` object arrived in the stream (some servers report failures that way). */
  error: string | null = null;
  #carry = "";

  /** Feeds decoded text; returns how many content events it completed. */
  feed(text: string): number {
    let buf = this.#carry + text;
    let held = "";
    // SSE allows CRLF and CR line ends; turn them into LF once, not per event. A CR that ends
    // this piece may be half of a CRLF, so it waits for the next piece.
    if (buf.includes("\r")) {
      if (buf.endsWith("\r")) [buf, held] = [buf.slice(0, -1), "\r"];
      buf = buf.replace(/\r\n?/g, "\n");
    }
    let start = 0;
    let added = 0;
    for (;;) {
      const end = buf.indexOf("\n\n", start);
      if (end < 0) break;
      added += this.#event(buf, start, end);
      start = end + 2;
    }
    this.#carry = (start === 0 ? buf : buf.slice(start)) + held;
    return added;
  }

  #event(buf: string, start: number, end: number): number {
    // An event's data is on its `data:` line; comments (`:`) and other fields carry none.
    let at = start;
    if (!buf.startsWith("data:", start)) {
      at = buf.indexOf("\ndata:", start) + 1;
      if (at <= 0 || at >= end) return 0;
    }
    let from = at + 5;
    if (buf.charCodeAt(from) === 32) from++;
    const nl = buf.indexOf("\n", from);
    const data = buf.slice(from, nl >= 0 && nl < end ? nl : end);
    if (data === "[DONE]") {
      this.done = true;
      return 0;
    }
    if (data.includes('"usage":{') || data.includes('"usage": {')) this.#usage(data);
    if (data.startsWith('{"error"')) {
      this.error = data.slice(0, 200);
      return 0;
    }
    // A usage-only chunk has an empty choices list; it carries no content.
    if (data.includes('"choices":[]')) return 0;
    this.contentEvents++;
    return 1;
  }

  #usage(data: string): void {
    try {
      const n = JSON.parse(data)?.usage?.completion_tokens;
      if (typeof n === "number") this.completionTokens = n;
    } catch {
      // Not JSON after all: the event still counts by its shape.
    }
  }
}
