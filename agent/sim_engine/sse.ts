/** Server-sent events the way OpenAI streams them: `data: {json}` blocks, then `data: [DONE]`. */

export function sseResponse(chunks: AsyncGenerator<unknown>, cancel: AbortController): Response {
  const enc = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(ctrl) {
      try {
        const r = await chunks.next();
        if (r.done) {
          ctrl.enqueue(enc.encode("data: [DONE]\n\n"));
          ctrl.close();
        } else ctrl.enqueue(enc.encode(`data: ${JSON.stringify(r.value)}\n\n`));
      } catch (e) {
        // Cut the connection rather than end cleanly: without [DONE] the client must not take a
        // half answer for a whole one. A no-op when the client has already gone.
        ctrl.error(e);
      }
    },
    cancel() {
      // The client went away. Aborting wakes a generator waiting on a timer; return() ends one
      // parked at a yield, which is what frees its slot.
      cancel.abort();
      chunks.return(undefined).catch(() => {});
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}
