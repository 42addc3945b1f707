/**
 * The client listener's edge, through its front door (a real port, raw HTTP/1.1 clients): the
 * idle, header and body timeouts, the cap per client address, trusted proxies, and HTTP/1.1 as
 * clients speak it (keep-alive, pipelining, chunked bodies, 100-continue, streams as they come).
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { get, post, RawClient } from "../../tests/helpers/raw_http.ts";
import { type Handler, listen } from "./testdata/edge_under_test.ts";

const ok: Handler = () => new Response("ok");

Deno.test("edge: a connection that sends nothing, or nothing more after an answer, is closed at listener.idle_timeout_ms", async () => {
  await using l = await listen({ "listener-idle-timeout-ms": "400" }, ok);
  const silent = await RawClient.connect(l.port);
  const kept = await RawClient.connect(l.port);
  const started = performance.now();
  await kept.send(get("/"));
  assertEquals((await kept.answer())?.body, "ok");
  assert(await silent.closedWithin(3_000), "the silent connection is still open");
  assert(await kept.closedWithin(3_000), "the kept-alive connection is still open");
  assert(performance.now() - started >= 300, "closed before the idle timeout");
});

Deno.test("edge: headers sent a byte at a time are cut at listener.header_timeout_ms", async () => {
  await using l = await listen({
    "listener-idle-timeout-ms": "10000",
    "listener-header-timeout-ms": "500",
  }, ok);
  const slow = await RawClient.connect(l.port);
  const text = get("/", { "x-padding": "a".repeat(200) });
  const started = performance.now();
  let sent = 0;
  const trickle = (async () => {
    for (; sent < text.length && !slow.ended; sent++) {
      await slow.send(text[sent]!).catch(() => {});
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  assert(await slow.closedWithin(3_000), "the slow-header client is still connected");
  const took = performance.now() - started;
  assert(took >= 450 && took < 2_500, `cut after ${Math.round(took)} ms`);
  assert(sent < text.length, "the whole head was sent before the cut");
  await trickle;
});

Deno.test("edge: a body slower than listener.body_min_rate_bytes_per_s is cut past the grace; a steady one is not", async () => {
  const bodies: string[] = [];
  await using l = await listen({
    "listener-body-min-rate-bytes-per-s": "1000",
    "listener-body-grace-ms": "300",
  }, async (req) => {
    bodies.push(await req.text());
    return new Response("got it");
  });
  const slow = await RawClient.connect(l.port);
  await slow.send("POST /x HTTP/1.1\r\nhost: a\r\ncontent-length: 10000\r\n\r\n");
  const started = performance.now();
  const trickle = (async () => {
    for (let i = 0; i < 100 && !slow.ended; i++) {
      await slow.send("0123456789").catch(() => {});
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  assert(await slow.closedWithin(4_000), "the slow body is still being waited for");
  const took = performance.now() - started;
  assert(took < 3_000, `cut after ${Math.round(took)} ms`);
  await trickle;

  const steady = await RawClient.connect(l.port);
  await steady.send("POST /x HTTP/1.1\r\nhost: a\r\ncontent-length: 3000\r\n\r\n");
  for (let i = 0; i < 6; i++) {
    await steady.send("x".repeat(500));
    await new Promise((r) => setTimeout(r, 100));
  }
  assertEquals((await steady.answer())?.body, "got it");
  assertEquals(bodies, ["x".repeat(3000)]);
  steady.close();
});

Deno.test("edge: listener.max_connections_per_address caps each client address, not the others", async () => {
  const seen: string[] = [];
  await using l = await listen({ "listener-max-connections-per-address": "2" }, (_req, env) => {
    seen.push(env.remoteAddr.hostname);
    return new Response("ok");
  });
  const a1 = await RawClient.connectFrom(l.port, "127.0.0.2");
  const a2 = await RawClient.connectFrom(l.port, "127.0.0.2");
  await a1.send(get("/"));
  assertEquals((await a1.answer())?.status, 200, "the first connection is served");
  const a3 = await RawClient.connectFrom(l.port, "127.0.0.2");
  assert(await a3.closedWithin(2_000), "a third connection from 127.0.0.2 is let in");
  const b = await RawClient.connectFrom(l.port, "127.0.0.3");
  await b.send(get("/"));
  assertEquals(
    (await b.answer())?.status,
    200,
    "127.0.0.3 is not capped by 127.0.0.2's connections",
  );
  await a2.send(get("/"));
  assertEquals((await a2.answer())?.status, 200, "the second connection is served");
  a1.close();
  await new Promise((r) => setTimeout(r, 100));
  const a4 = await RawClient.connectFrom(l.port, "127.0.0.2");
  await a4.send(get("/"));
  assertEquals((await a4.answer())?.status, 200, "a connection closed makes room");
  assertEquals(seen, ["127.0.0.2", "127.0.0.3", "127.0.0.2", "127.0.0.2"]);
  for (const c of [a2, a3, a4, b]) c.close();
});

Deno.test("edge: a trusted proxy's X-Forwarded-For names the client, nobody else's; the proxy is not capped", async () => {
  const seen: string[] = [];
  await using l = await listen({
    "listener-max-connections-per-address": "1",
    "trusted-proxies": "127.0.0.4, 10.9.0.0/16",
  }, (_req, env) => {
    seen.push(env.remoteAddr.hostname);
    return new Response("ok");
  });
  const viaProxy = await Promise.all(
    [1, 2, 3].map(() => RawClient.connectFrom(l.port, "127.0.0.4")),
  );
  for (const [i, c] of viaProxy.entries()) {
    // The client's own claim (the left part) is not believed past the first untrusted hop.
    await c.send(get("/", { "x-forwarded-for": `6.6.6.6, 198.51.100.${i + 1}, 10.9.1.1` }));
    assertEquals((await c.answer())?.status, 200, `connection ${i + 1} through the proxy`);
  }
  const direct = await RawClient.connectFrom(l.port, "127.0.0.5");
  await direct.send(get("/", { "x-forwarded-for": "198.51.100.9" }));
  assertEquals((await direct.answer())?.status, 200);
  assertEquals(seen, ["198.51.100.1", "198.51.100.2", "198.51.100.3", "127.0.0.5"]);
  for (const c of [...viaProxy, direct]) c.close();
});

Deno.test("edge: a streamed answer goes out piece by piece, as the app gives it", async () => {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  await using l = await listen({}, () =>
    new Response(
      new ReadableStream<Uint8Array>({
        async start(c) {
          c.enqueue(new TextEncoder().encode("data: one\n\n"));
          await held;
          c.enqueue(new TextEncoder().encode("data: two\n\n"));
          c.close();
        },
      }),
      { headers: { "content-type": "text/event-stream" } },
    ));
  const c = await RawClient.connect(l.port);
  await c.send(get("/stream"));
  const answer = c.answer();
  // The first piece is out while the second is still being made.
  await new Promise((r) => setTimeout(r, 200));
  release();
  const a = await answer;
  assertEquals(a?.headers.get("transfer-encoding"), "chunked");
  assertEquals(a?.pieces, ["data: one\n\n", "data: two\n\n"]);
  c.close();
});

Deno.test("edge: chunk sizes are framed exactly, across hex digit boundaries", async () => {
  const sizes = [1, 15, 16, 255, 256, 4095, 4096, 70_000];
  await using l = await listen({}, () =>
    new Response(
      new ReadableStream<Uint8Array>({
        async start(c) {
          for (const n of sizes) {
            c.enqueue(new TextEncoder().encode("x".repeat(n)));
            // Apart in time, so each is its own chunk rather than a whole body.
            await new Promise((r) => setTimeout(r, 5));
          }
          c.close();
        },
      }),
    ));
  const c = await RawClient.connect(l.port);
  await c.send(get("/sizes"));
  const a = await c.answer();
  assertEquals(a?.headers.get("transfer-encoding"), "chunked");
  assertEquals(a?.pieces?.map((p) => p.length), sizes);
  c.close();
});

Deno.test("edge: HTTP/1.1 as clients speak it: keep-alive, pipelining, chunked bodies, 100-continue, HEAD, cookies", async () => {
  await using l = await listen({}, async (req) => {
    const body = req.body ? await req.text() : "";
    const headers = new Headers({ "x-method": req.method });
    headers.append("set-cookie", "a=1");
    headers.append("set-cookie", "b=2");
    return new Response(`${new URL(req.url).pathname} ${body}`, { headers });
  });
  const c = await RawClient.connect(l.port);
  // Two requests in one write, then a chunked body on the same connection.
  await c.send(get("/one") + post("/two", { n: 2 }));
  const one = await c.answer();
  assertEquals(one?.body, "/one ");
  assertEquals(one?.headLines.filter((l) => l.startsWith("set-cookie:")), [
    "set-cookie: a=1",
    "set-cookie: b=2",
  ]);
  const two = await c.answer();
  assertEquals(two?.body, '/two {"n":2}');
  assertEquals(two?.headers.get("content-length"), String('/two {"n":2}'.length));
  await c.send("POST /three HTTP/1.1\r\nhost: a\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n");
  await c.send("2\r\nde\r\n0\r\n\r\n");
  assertEquals((await c.answer())?.body, "/three abcde");
  await c.send("HEAD /four HTTP/1.1\r\nhost: a\r\n\r\n");
  const head = await c.answer(5_000, { headOnly: true });
  assertEquals(head?.headers.get("x-method"), "HEAD");
  await c.send(get("/five"));
  assertEquals((await c.answer())?.body, "/five ");

  const cont = await RawClient.connect(l.port);
  await cont.send(
    "POST /six HTTP/1.1\r\nhost: a\r\nexpect: 100-continue\r\ncontent-length: 2\r\n\r\n",
  );
  assertEquals((await cont.answer(5_000, { headOnly: true }))?.status, 100);
  await cont.send("hi");
  const six = await cont.answer();
  assertEquals(six?.body, "/six hi");

  const bad = await RawClient.connect(l.port);
  await bad.send(
    "POST / HTTP/1.1\r\nhost: a\r\ncontent-length: 2\r\ntransfer-encoding: chunked\r\n\r\n",
  );
  assertEquals((await bad.answer())?.status, 400, "two framings is how requests are smuggled");
  assert(await bad.closedWithin(1_000));
  const badHost = await RawClient.connect(l.port);
  await badHost.send("GET /one HTTP/1.1\r\nhost: a/admin?\r\n\r\n");
  assertEquals((await badHost.answer())?.status, 400, "a Host with a path would move the route");
  for (const x of [c, cont, badHost]) x.close();
});

Deno.test("edge: a client that leaves aborts its request's signal, before the answer or mid-stream (the stream is cancelled)", async () => {
  const aborted: string[] = [];
  let cancelled = Promise.withResolvers<unknown>();
  await using l = await listen({}, async (req, env) => {
    const path = new URL(req.url).pathname;
    env.clientGone.addEventListener("abort", () => aborted.push(path));
    if (path === "/wait") {
      await new Promise((r) => env.clientGone.addEventListener("abort", r));
      return new Response("too late");
    }
    return new Response(
      new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new TextEncoder().encode("data: one\n\n"));
        },
        cancel(reason) {
          cancelled.resolve(reason);
        },
      }),
    );
  });
  const waiting = await RawClient.connect(l.port);
  await waiting.send(get("/wait"));
  await new Promise((r) => setTimeout(r, 100));
  waiting.close();
  const streaming = await RawClient.connect(l.port);
  await streaming.send(get("/stream"));
  await new Promise((r) => setTimeout(r, 100));
  streaming.close();
  await cancelled.promise;
  for (let i = 0; i < 50 && aborted.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
  assertEquals(aborted.sort(), ["/stream", "/wait"]);
  cancelled = Promise.withResolvers();
});

Deno.test("edge: an answer of declared length goes out whole and the connection is kept; one shorter than declared ends it", async () => {
  await using l = await listen({}, (req) => {
    const path = new URL(req.url).pathname;
    const text = JSON.stringify({ path, pad: "x".repeat(100) });
    const length = path === "/short" ? text.length + 10 : text.length;
    return new Response(text, {
      headers: { "content-type": "application/json", "content-length": String(length) },
    });
  });
  const c = await RawClient.connect(l.port);
  await c.send(get("/one"));
  const one = await c.answer();
  assertEquals(JSON.parse(one!.body).path, "/one");
  assertEquals(one?.headers.get("content-length"), String(one!.body.length));
  assertEquals(one?.headLines.filter((h) => h.startsWith("content-length:")).length, 1);
  await c.send(get("/two"));
  assertEquals(JSON.parse((await c.answer())!.body).path, "/two", "the connection was kept");
  await c.send(get("/short"));
  assert(
    await c.closedWithin(1_000),
    "a body short of its Content-Length would leave the client waiting",
  );
  c.close();
});

Deno.test("edge: a stream whose first piece is empty still delivers the later pieces, and the connection is kept", async () => {
  await using l = await listen(
    {},
    (req) =>
      new URL(req.url).pathname === "/next" ? new Response("next") : new Response(
        new ReadableStream<Uint8Array>({
          async start(c) {
            c.enqueue(new Uint8Array(0));
            await new Promise((r) => setTimeout(r, 20));
            c.enqueue(new TextEncoder().encode("data: one\n\n"));
            await new Promise((r) => setTimeout(r, 20));
            c.enqueue(new Uint8Array(0));
            c.enqueue(new TextEncoder().encode("data: two\n\n"));
            c.close();
          },
        }),
      ),
  );
  const c = await RawClient.connect(l.port);
  await c.send(get("/stream"));
  const a = await c.answer();
  assertEquals(a?.headers.get("transfer-encoding"), "chunked");
  assertEquals(a?.pieces, ["data: one\n\n", "data: two\n\n"]);
  await c.send(get("/next"));
  assertEquals((await c.answer())?.body, "next", "the stream's end was misread");
  c.close();
});
