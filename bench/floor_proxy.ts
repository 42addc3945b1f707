/**
 * The least a Deno proxy can do for a streamed completion, as a yardstick for the gateway's CPU
 * per request: no key check, no routing, no parsing, no usage. Run by bench/floor.ts.
 *
 *   deno run -A bench/floor_proxy.ts <upstream-base-url> <mode>
 *
 * Modes: `pipe` hands the engine's body to Deno.serve untouched (Deno copies it natively, with no
 * JavaScript per chunk); `js` reads each chunk in JavaScript with the default reader and enqueues
 * it; `byob` does the same with one reused buffer; `raw` reaches the engine through llmgw's own
 * HTTP/1.1 connections (server/router/upstream/http1_pool.ts), as relay.ts does, less its parsing.
 */
import { Http1Pool } from "../server/router/upstream/http1_pool.ts";

const [upstream, mode = "pipe"] = Deno.args;
if (!upstream || !["pipe", "js", "byob", "raw"].includes(mode)) {
  console.error("usage: floor_proxy.ts <upstream-base-url> pipe|js|byob|raw");
  Deno.exit(2);
}

function relayBody(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  if (mode === "pipe") return body;
  if (mode === "js") {
    const reader = body.getReader();
    return new ReadableStream({
      async pull(ctrl) {
        const r = await reader.read();
        if (r.done) ctrl.close();
        else ctrl.enqueue(r.value);
      },
      cancel: () => reader.cancel(),
    });
  }
  const reader = body.getReader({ mode: "byob" });
  let buf = new Uint8Array(16 * 1024);
  return new ReadableStream({
    async pull(ctrl) {
      const r = await reader.read(buf);
      if (r.done) return ctrl.close();
      // The chunk must be copied out: the buffer is read into again at once.
      ctrl.enqueue(r.value.slice());
      buf = new Uint8Array(r.value.buffer as ArrayBuffer);
    },
    cancel: () => reader.cancel(),
  });
}

const pool = new Http1Pool();

async function rawProxy(req: Request): Promise<Response> {
  const url = new URL(req.url);
  const headers: Record<string, string> = {};
  for (const name of ["content-type", "authorization", "accept"]) {
    const v = req.headers.get(name);
    if (v) headers[name] = v;
  }
  const res = await pool.request({
    method: req.method,
    url: upstream + url.pathname,
    headers,
    body: new Uint8Array(await req.arrayBuffer()),
    signal: req.signal,
  });
  const contentType = res.headers.get("content-type") ?? "application/json";
  if (!contentType.includes("event-stream")) {
    return new Response(await res.text(), {
      status: res.status,
      headers: { "content-type": contentType },
    });
  }
  return new Response(
    new ReadableStream<Uint8Array>({
      async pull(ctrl) {
        const piece = await res.read();
        if (piece === null) return ctrl.close();
        ctrl.enqueue(piece.slice());
      },
      cancel: () => res.cancel(),
    }),
    { status: res.status, headers: { "content-type": contentType } },
  );
}

if (mode !== "rawserve") {
  Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: (a) => console.log(`floor proxy (${mode}) on http://127.0.0.1:${a.port}`),
  }, async (req) => {
    if (mode === "raw") return await rawProxy(req);
    const url = new URL(req.url);
    const res = await fetch(upstream + url.pathname, {
      method: req.method,
      headers: req.headers,
      body: req.body,
      signal: req.signal,
    });
    if (!res.body) return res;
    return new Response(relayBody(res.body), { status: res.status, headers: res.headers });
  });
}
