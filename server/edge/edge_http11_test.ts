/**
 * HTTP/1.1's framing details at the edge, through a real port: 100 Continue only once the app
 * reads, Host required, blank lines before a request, bare LFs, pipelining after a chunked body,
 * one Date, and a lingering close after an answer the client may still be sending to.
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { get, RawClient } from "../../tests/helpers/raw_http.ts";
import { listen } from "./testdata/edge_under_test.ts";

const echo = async (req: Request) => {
  const path = new URL(req.url).pathname;
  if (path === "/deny") return new Response("no", { status: 401 });
  if (path === "/dated") {
    return new Response("d", { headers: { date: "Tue, 01 Dec 2026 00:00:00 GMT" } });
  }
  return new Response(`${path} ${req.body ? await req.text() : ""}`);
};

async function ask(port: number, wire: string, ms = 5_000) {
  const c = await RawClient.connect(port);
  try {
    await c.send(wire);
    const a = await c.answer(ms);
    return { status: a?.status, body: a?.body, headLines: a?.headLines ?? [] };
  } finally {
    c.close();
  }
}

Deno.test("edge: Expect: 100-continue is answered only when the app reads the body: a 401 made without it goes out alone", async () => {
  await using l = await listen({}, echo);
  const expect = (path: string) =>
    `POST ${path} HTTP/1.1\r\nhost: a\r\nexpect: 100-continue\r\ncontent-length: 2\r\n\r\n`;
  const denied = await RawClient.connect(l.port);
  await denied.send(expect("/deny"));
  const first = await denied.answer(5_000);
  assertEquals(first?.status, 401, "100 Continue went out for a body nobody reads");
  assert(await denied.closedWithin(2_000), "the unread body's connection stays open");
  denied.close();
  const read = await RawClient.connect(l.port);
  await read.send(expect("/read"));
  assertEquals((await read.answer(5_000, { headOnly: true }))?.status, 100);
  await read.send("hi");
  assertEquals((await read.answer())?.body, "/read hi");
  read.close();
});

Deno.test("edge: an HTTP/1.1 request without Host, or with two, gets 400; HTTP/1.0 needs none", async () => {
  await using l = await listen({}, echo);
  assertEquals((await ask(l.port, "GET /x HTTP/1.1\r\n\r\n")).status, 400);
  assertEquals((await ask(l.port, "GET http://a/x HTTP/1.1\r\n\r\n")).status, 400);
  assertEquals((await ask(l.port, "GET /x HTTP/1.1\r\nhost: a\r\nhost: b\r\n\r\n")).status, 400);
  assertEquals((await ask(l.port, "GET /x HTTP/1.0\r\n\r\n")).body, "/x ");
  assertEquals((await ask(l.port, "GET /x HTTP/1.1\r\nhost: a\r\n\r\n")).body, "/x ");
});

Deno.test("edge: one or two blank lines before a request line are skipped, a third is 400; a head of bare LFs is refused at once", async () => {
  await using l = await listen({ "listener-header-timeout-ms": "10000" }, echo);
  assertEquals((await ask(l.port, "\r\n" + get("/one"))).body, "/one ");
  assertEquals((await ask(l.port, "\r\n\r\n" + get("/two"))).body, "/two ");
  assertEquals((await ask(l.port, "\r\n\r\n\r\n" + get("/three"))).status, 400);
  // On a kept connection, a client's extra CRLF after a body.
  const c = await RawClient.connect(l.port);
  await c.send("POST /b HTTP/1.1\r\nhost: a\r\ncontent-length: 2\r\n\r\nhi\r\n");
  assertEquals((await c.answer())?.body, "/b hi");
  await c.send(get("/after"));
  assertEquals((await c.answer())?.body, "/after ");
  c.close();
  const started = performance.now();
  assertEquals((await ask(l.port, "GET / HTTP/1.1\nhost: a\n\n")).status, 400);
  assertEquals((await ask(l.port, "\nGET / HTTP/1.1\r\nhost: a\r\n\r\n")).status, 400);
  assert(performance.now() - started < 2_000, "a bare-LF head waited for its end");
});

Deno.test("edge: a request pipelined after a chunked body is answered", async () => {
  await using l = await listen({}, echo);
  const c = await RawClient.connect(l.port);
  await c.send(
    "POST /chunked HTTP/1.1\r\nhost: a\r\ntransfer-encoding: chunked\r\n\r\n" +
      "3\r\nabc\r\n0\r\nx-t: 1\r\n\r\n" + get("/next") +
      "POST /again HTTP/1.1\r\nhost: a\r\ntransfer-encoding: chunked\r\n\r\n2\r\nde\r\n0\r\n\r\n",
  );
  assertEquals((await c.answer())?.body, "/chunked abc");
  assertEquals((await c.answer())?.body, "/next ");
  assertEquals((await c.answer())?.body, "/again de");
  c.close();
});

Deno.test("edge: one Date: the app's own when it sets one, else the edge's", async () => {
  await using l = await listen({}, echo);
  const dates = (lines: string[]) => lines.filter((h) => h.toLowerCase().startsWith("date:"));
  assertEquals(dates((await ask(l.port, get("/dated"))).headLines), [
    "date: Tue, 01 Dec 2026 00:00:00 GMT",
  ]);
  assertEquals(dates((await ask(l.port, get("/plain"))).headLines).length, 1);
});

Deno.test("edge: after an error answer the edge shuts its side and drains: a client still sending reads the answer and a clean end, and is not reset", async () => {
  await using l = await listen({}, echo);
  const cases = [
    [
      "a 401 with its body unread",
      "POST /deny HTTP/1.1\r\nhost: a\r\ncontent-length: 8000000\r\n\r\n",
    ],
    [
      "a 400 for the head",
      "POST /x HTTP/1.1\r\nhost: a\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\n",
    ],
  ] as const;
  for (const [what, head] of cases) {
    const c = await RawClient.connect(l.port);
    await c.send(head + "x".repeat(10 * 1024));
    const a = await c.answer(5_000);
    assert(a?.status === 401 || a?.status === 400, `${what}: ${a?.status}`);
    assert(await c.closedWithin(3_000), `${what}: the edge's side is not shut`);
    assertEquals(c.error, undefined, `${what}: the connection was reset`);
    // The client goes on sending the body it meant to: closed at once, the edge would reset it
    // (off loopback, possibly before the answer got there), and these writes fail (BrokenPipe).
    for (let i = 0; i < 4; i++) {
      await c.send("y".repeat(16 * 1024));
      await new Promise((r) => setTimeout(r, 20));
    }
    c.close();
  }
});
