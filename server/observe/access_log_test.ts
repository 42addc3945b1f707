/**
 * The access log: one line per request with its id (the same as x-request-id), method, route
 * pattern, status, duration, model and bytes; in JSON or logfmt; never the prompt, the answer or
 * the key.
 */
import { assert, assertEquals, assertMatch } from "../../tests/assert.ts";
import { createLogger, logfmt } from "../../core/log.ts";
import { startHarness } from "../../tests/helpers/harness.ts";
import { buildApp } from "../wiring/app.ts";
import { Hono } from "hono";
import type { AppEnv } from "../app_env.ts";
import { accessLog } from "./access_log.ts";
import type { RequestTracer } from "./request_tracer.ts";

Deno.test("access log: one JSON line per request, ids match, nothing secret", async () => {
  const h = await startHarness();
  const lines: string[] = [];
  const app = buildApp({ ...h.deps, logger: createLogger({ sink: (l) => lines.push(l) }) });
  try {
    const res = await app.request("/v1/chat/completions", {
      method: "POST",
      headers: { authorization: `Bearer ${h.key}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: "demo",
        stream: true,
        messages: [{ role: "user", content: "the words of a private prompt" }],
      }),
    });
    const answer = await res.text();
    const id = res.headers.get("x-request-id")!;
    const access = lines.map((l) => JSON.parse(l)).filter((o) => o.msg === "request");
    assertEquals(access.length, 1);
    const line = access[0];
    assertEquals(line.request_id, id);
    assertEquals(line.method, "POST");
    assertEquals(line.route, "/v1/chat/completions");
    assertEquals(line.status, 200);
    assertEquals(line.model, "demo");
    assertEquals(line.bytes_out, new TextEncoder().encode(answer).length);
    assert(line.duration_ms >= 0);
    const all = lines.join("\n");
    assert(!all.includes("private prompt"));
    assert(!all.includes(h.key));

    // A whole JSON answer is measured too, though it is written in one go, not as a stream.
    const plain = await app.request("/v1/chat/completions", {
      method: "POST",
      headers: { authorization: `Bearer ${h.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "demo", messages: [{ role: "user", content: "hi" }] }),
    });
    const plainAnswer = await plain.text();
    const plainLine = JSON.parse(lines.at(-1)!);
    assertEquals(plainLine.request_id, plain.headers.get("x-request-id"));
    assertEquals(plainLine.bytes_out, new TextEncoder().encode(plainAnswer).length);

    const missing = await app.request("/nowhere/at/all", {
      headers: { authorization: `Bearer ${h.key}` },
    });
    await missing.body?.cancel();
    const last = JSON.parse(lines.at(-1)!);
    assertEquals(last.status, 404);
    assertEquals(last.route, "unmatched");
  } finally {
    await h.close();
  }
});

Deno.test("access log: an answer made whole in memory (JSON, an error) goes out whole, with its length", async () => {
  const h = await startHarness();
  const lines: string[] = [];
  const app = buildApp({ ...h.deps, logger: createLogger({ sink: (l) => lines.push(l) }) });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, app.fetch);
  try {
    const base = `http://127.0.0.1:${server.addr.port}`;
    const res = await fetch(`${base}/v1/models`, { headers: { authorization: `Bearer ${h.key}` } });
    const text = await res.text();
    // Written in one go: a length, not chunks.
    assertEquals(res.headers.get("content-length"), String(new TextEncoder().encode(text).length));
    assertEquals(res.headers.get("transfer-encoding"), null);
    assertEquals(JSON.parse(lines.at(-1)!).bytes_out, Number(res.headers.get("content-length")));
    // An error answer too.
    const refused = await fetch(`${base}/v1/models`, { headers: { authorization: "Bearer nope" } });
    const refusedText = await refused.text();
    assertEquals(refused.status, 401);
    assertEquals(refused.headers.get("content-length"), String(refusedText.length));
    // Refused before its handler ran, it still counts under the route it was for.
    assertEquals(JSON.parse(lines.at(-1)!).route, "/v1/models");
  } finally {
    await server.shutdown();
    await h.close();
  }
});

Deno.test("logfmt: key=value pairs, quoted when needed", () => {
  assertEquals(
    logfmt({ level: "info", msg: "node lost", n: 3, ok: true, o: { a: 1 }, e: "" }),
    'level=info msg="node lost" n=3 ok=true o="{\\"a\\":1}" e=""',
  );
  const lines: string[] = [];
  createLogger({ format: "logfmt", sink: (l) => lines.push(l) }).info("hi", {
    api_key: "sk-llmgw-abc",
  });
  assertMatch(lines[0]!, /^t=\S+ level=info msg=hi api_key=\[redacted\]$/);
});

Deno.test("access log: a whole answer passed on from fetch (its headers immutable) gets its length too", async () => {
  const upstream = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => Response.json({ from: "upstream" }),
  );
  const app = new Hono<AppEnv>();
  app.use(
    "*",
    accessLog(
      createLogger({ sink: () => {} }),
      { observeHttp() {} },
      { ended() {} } as unknown as RequestTracer,
    ),
  );
  app.get("/passed-on", () => fetch(`http://127.0.0.1:${upstream.addr.port}/`));
  try {
    const res = await app.request("/passed-on");
    const text = await res.text();
    assertEquals(res.status, 200);
    assertEquals(JSON.parse(text), { from: "upstream" });
    assertEquals(res.headers.get("content-length"), String(text.length));
  } finally {
    await upstream.shutdown();
  }
});
