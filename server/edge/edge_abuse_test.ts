/**
 * What an attacker could still do to the edge, through real sockets: a head of thousands of header
 * lines or a request line of tens of KiB (cheap to send, dear to parse), chunk extensions or trailers
 * that never end (bytes that are no part of the body, so no body limit counts them; Node's
 * CVE-2024-22019), and a client that asks for an answer and never reads it (the write would wait
 * forever, holding the connection and whatever the answer holds: a stream's engine slot).
 */
import { assert, assertEquals, assertMatch } from "../../tests/assert.ts";
import { startTestControlPlane } from "../../tests/helpers/control_plane.ts";
import { get, RawClient } from "../../tests/helpers/raw_http.ts";
import { listen } from "./testdata/edge_under_test.ts";

const readBody = async (req: Request) => {
  try {
    return new Response(`got ${(await req.text()).length}`);
  } catch {
    return new Response("bad body", { status: 400 });
  }
};

Deno.test("edge abuse: a chunk extension or trailer section without end is refused, not read on and on", async () => {
  await using l = await listen({}, readBody);
  for (
    const [what, opening] of [
      ["extension", "5;" + "a".repeat(64 * 1024)],
      ["trailers", "5\r\nhello\r\n0\r\n" + "x-trailer: a\r\n".repeat(8 * 1024)],
    ] as const
  ) {
    const c = await RawClient.connect(l.port);
    await c.send("POST /x HTTP/1.1\r\nhost: a\r\ntransfer-encoding: chunked\r\n\r\n");
    // Sent in pieces, as an attacker would keep on sending; the refusal may cut the sending short.
    for (let at = 0; at < opening.length && !c.ended; at += 8 * 1024) {
      await c.send(opening.slice(at, at + 8 * 1024)).catch(() => {});
    }
    const a = await c.answer(3_000);
    assertEquals(a?.status, 400, `an endless chunk ${what} is still being read`);
    assert(await c.closedWithin(2_000), "the connection stays open");
  }
  const fine = await RawClient.connect(l.port);
  await fine.send(
    "POST /x HTTP/1.1\r\nhost: a\r\ntransfer-encoding: chunked\r\n\r\n" +
      "5;name=value\r\nhello\r\n0\r\nx-checksum: 1\r\n\r\n",
  );
  assertEquals((await fine.answer())?.body, "got 5", "a short extension and trailer are fine");
  fine.close();
});

Deno.test("edge abuse: a client that reads nothing of its answer is cut at listener.send_timeout_ms, and the answer's stream is cancelled", async () => {
  const cancelled = Promise.withResolvers<void>();
  const piece = new Uint8Array(64 * 1024).fill(0x61);
  await using l = await listen({ "listener-send-timeout-ms": "500" }, () =>
    new Response(
      new ReadableStream<Uint8Array>({
        pull(c) {
          c.enqueue(piece);
        },
        cancel() {
          cancelled.resolve();
        },
      }),
    ));
  // Deno.connect reads only when asked: this client asks for the answer and never reads it.
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: l.port });
  await conn.write(new TextEncoder().encode("GET /big HTTP/1.1\r\nhost: a\r\n\r\n"));
  let timer: ReturnType<typeof setTimeout> | undefined;
  const outcome = await Promise.race([
    cancelled.promise.then(() => "cancelled"),
    new Promise((r) => (timer = setTimeout(() => r("still writing"), 5_000))),
  ]);
  clearTimeout(timer);
  conn.close();
  assertEquals(outcome, "cancelled", "the answer is still waiting on a client that reads nothing");
});

Deno.test("edge abuse: more than 256 header lines get 431, a request line over 16 KiB gets 414; the CPU they would cost is not spent", async () => {
  let served = 0;
  await using l = await listen({}, () => {
    served++;
    return new Response("ok");
  });
  const ask = async (text: string) => {
    const c = await RawClient.connect(l.port);
    try {
      await c.send(text);
      const a = await c.answer(5_000);
      return { status: a?.status, closed: await c.closedWithin(1_000) };
    } finally {
      c.close();
    }
  };
  // 16,000 header lines fit in the 64 KiB head; joining them cost the app ~50 ms a request.
  const many = "GET / HTTP/1.1\r\nhost: a\r\n" + "a:\r\n".repeat(16_000) + "\r\n";
  assertEquals(await ask(many), { status: 431, closed: true }, "16,000 header lines");
  const lots: Record<string, string> = {};
  for (let i = 0; i < 255; i++) lots[`x-h${i}`] = "1";
  assertEquals((await ask(get("/", lots))).status, 200, "256 header lines, host included");
  lots["x-one-more"] = "1";
  assertEquals((await ask(get("/", lots))).status, 431, "257 header lines");
  assertEquals(
    await ask(get("/" + "a".repeat(20 * 1024))),
    { status: 414, closed: true },
    "a 20 KiB target",
  );
  assertEquals((await ask(get("/" + "a".repeat(16 * 1024 - 20)))).status, 200, "a 16 KiB line");
  assertEquals(served, 2);
});

Deno.test("edge abuse: a malformed chunked body gets 400 and a body its client leaves midway is no server error: neither logs an unhandled error", async () => {
  const t = await startTestControlPlane();
  const port = Number(new URL(t.cp.url).port);
  const head = (framing: string) =>
    `POST /v1/chat/completions HTTP/1.1\r\nhost: a\r\nauthorization: Bearer ${t.key}\r\n` +
    `content-type: application/json\r\n${framing}\r\n\r\n`;
  try {
    const bad = await RawClient.connect(port);
    await bad.send(head("transfer-encoding: chunked") + '5\r\n{"a":\r\nzz\r\n');
    const a = await bad.answer(5_000);
    assertEquals(a?.status, 400, a?.body);
    assertMatch(a?.body ?? "", /invalid_request/);
    bad.close();
    const leaving = await RawClient.connect(port);
    await leaving.send(head("content-length: 100") + '{"a":');
    await new Promise((r) => setTimeout(r, 200));
    leaving.close();
    await new Promise((r) => setTimeout(r, 500));
    const errors = t.lines.filter((l) => l.includes('"unhandled error"'));
    assertEquals(errors, [], "a client's bad body is logged as the server's error");
  } finally {
    await t.close();
  }
});

Deno.test("edge abuse: a header value holding 60 KB of spaces and tabs is answered in under 50 ms", async () => {
  await using l = await listen({}, () => new Response("ok"));
  const c = await RawClient.connect(l.port);
  try {
    // The first answer on a fresh listener pays for compiling its path: not what is measured.
    await c.send(get("/"));
    assertEquals((await c.answer())?.status, 200);
    const run = " \t".repeat(30_000);
    const started = performance.now();
    await c.send(`GET / HTTP/1.1\r\nhost: a\r\nX-A: a${run}b\r\n\r\n`);
    const a = await c.answer(10_000);
    const took = performance.now() - started;
    assert(a?.status === 200 || a?.status === 431, `answered ${a?.status}`);
    assert(took < 50, `answered in ${took.toFixed(1)} ms`);
  } finally {
    c.close();
  }
});
