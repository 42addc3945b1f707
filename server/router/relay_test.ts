import { assertEquals } from "../../tests/assert.ts";
import { startHarness } from "../../tests/helpers/harness.ts";
import { addReplica, chat, fakeServer, usageRows } from "../../tests/helpers/routing.ts";
import { countDataEvents } from "./relay_stream.ts";

/**
 * An engine that writes its stream in the given pieces, each its own socket write (a pause
 * between them), so events arrive cut anywhere: mid-line, mid-event, several to a read.
 */
function piecewiseEngine(pieces: string[]) {
  return fakeServer(() =>
    new Response(
      new ReadableStream({
        async start(ctrl) {
          for (const p of pieces) {
            ctrl.enqueue(new TextEncoder().encode(p));
            await new Promise((r) => setTimeout(r, 5));
          }
          ctrl.close();
        },
      }),
      { headers: { "content-type": "text/event-stream" } },
    )
  );
}

const chunk = (content: string) =>
  `{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"${content}"}}],"usage":null}`;
const usageChunk =
  '{"id":"c1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":5,"total_tokens":12}}';

const pieces = [
  `data: ${chunk("He")}\n\ndata: ${chunk("l")}`, // a second event cut mid-line
  `\n\n: a comment the engine sends to keep the line open\n\n`,
  `data: ${chunk("lo")}\r\n\r\n`, // CRLF line ends
  `event: message\ndata: ${chunk(" wor")}\n\n`, // a named event
  `data: ${chunk("ld").slice(0, 20)}`,
  `${chunk("ld").slice(20)}\n\n`, // one event over two reads
  `data: ${usageChunk}\n\ndata: [DONE]\n\n`,
];

/** A harness whose one replica is `engine`; both closed after `fn`. */
async function withEngine(
  engine: ReturnType<typeof fakeServer>,
  fn: (h: Awaited<ReturnType<typeof startHarness>>) => Promise<void>,
): Promise<void> {
  const h = await startHarness();
  try {
    h.deps.replicas.remove("r1");
    addReplica(h, "engine", engine.url);
    await fn(h);
  } finally {
    await engine.close();
    await h.close();
  }
}

/** The events a client sees, each as its fields. */
function events(text: string): string[] {
  return text.split("\n\n").filter(Boolean);
}

Deno.test("stream relay: events cut anywhere reach the client whole, without the usage a client did not ask for", async () => {
  await withEngine(piecewiseEngine(pieces), async (h) => {
    const res = await h.v1("/chat/completions", chat("hi", { stream: true }));
    assertEquals(res.status, 200);
    const got = events(await res.text());
    const contents = got.filter((e) => e.includes('"delta"')).map((e) =>
      JSON.parse(e.slice(e.indexOf("data: ") + 6)).choices[0].delta.content
    );
    assertEquals(contents.join(""), "Hello world");
    assertEquals(got.some((e) => e.includes('"usage"')), false);
    assertEquals(got.at(-1), "data: [DONE]");
    assertEquals(got.filter((e) => e.startsWith("event: message\n")).length, 1);
    const [row] = await usageRows(h);
    assertEquals([row?.promptTokens, row?.completionTokens, row?.status], [7, 5, 200]);
  });
});

Deno.test("stream relay: a client that asked for usage gets the usage chunk and every field as sent", async () => {
  await withEngine(piecewiseEngine(pieces), async (h) => {
    const res = await h.v1(
      "/chat/completions",
      chat("hi", { stream: true, stream_options: { include_usage: true } }),
    );
    const got = events(await res.text());
    assertEquals(got.filter((e) => e.includes('"usage":null')).length, 5);
    assertEquals(got.at(-2), `data: ${usageChunk}`);
  });
});

Deno.test("stream relay: a data field of several lines passes as several data lines", async () => {
  await withEngine(
    piecewiseEngine([
      `data: {"choices":[{"delta":{"content":"a"}}]\ndata: }\n\n`,
      // An `id:` field sends the read through the full parser.
      `id: 7\ndata: {"choices":[{"delta":{"content":"b"}}]\ndata: }\n\ndata: [DONE]\n\n`,
    ]),
    async (h) => {
      const got = events(
        await (await h.v1("/chat/completions", chat("hi", { stream: true }))).text(),
      );
      assertEquals(got.length, 3);
      for (const e of got.slice(0, 2)) {
        const lines = e.split("\n");
        assertEquals([lines.length, lines.every((l) => l.startsWith("data: "))], [2, true], e);
        assertEquals(JSON.parse(lines.map((l) => l.slice(6)).join("\n")).choices.length, 1);
      }
    },
  );
});

Deno.test("stream relay: counting the events of a read", () => {
  assertEquals(countDataEvents("data: a\n\ndata: b\n\n"), 2);
  assertEquals(countDataEvents("data: a\n\ndata: [DONE]\n\n"), 1);
  assertEquals(countDataEvents("data: a\ndata: b\n\n"), 1);
  assertEquals(countDataEvents("event: x\ndata: a\n\n"), -1);
  assertEquals(countDataEvents(": keep-alive\n\n"), -1);
  assertEquals(countDataEvents(""), 0);
});

Deno.test("relay: a body that needs no change reaches the engine byte for byte; one that does is rewritten", async () => {
  const received: string[] = [];
  const engine = fakeServer(async (req) => {
    received.push(await req.text());
    return Response.json({ choices: [], usage: { prompt_tokens: 1, completion_tokens: 1 } });
  });
  await withEngine(engine, async (h) => {
    // Spacing, key order and a number written as 1.0 survive only if the bytes are passed on.
    const sent =
      '{ "temperature": 1.0,  "model": "demo", "messages": [{"role":"user","content":"hi"}] }';
    const res = await h.app.request("/v1/chat/completions", {
      method: "POST",
      headers: { authorization: `Bearer ${h.key}`, "content-type": "application/json" },
      body: sent,
    });
    assertEquals(res.status, 200);
    assertEquals(received[0], sent);
    // A stream must ask the engine for usage: the option is added to the client's bytes...
    const streamed = sent.replace('"model"', '"stream": true, "model"') + "\n";
    const send = async (body: string) =>
      await (await h.app.request("/v1/chat/completions", {
        method: "POST",
        headers: { authorization: `Bearer ${h.key}`, "content-type": "application/json" },
        body,
      })).text();
    await send(streamed);
    assertEquals(
      received[1],
      streamed.replace(/ }\n$/, ' ,"stream_options":{"include_usage":true}}'),
    );
    assertEquals(JSON.parse(received[1]!).stream_options, { include_usage: true });
    // ...and merged into options the client set, by writing the body anew.
    await send(streamed.replace('"stream": true', '"stream": true, "stream_options": {"x": 1}'));
    assertEquals(JSON.parse(received[2]!).stream_options, { x: 1, include_usage: true });
  });
});
