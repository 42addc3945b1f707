/**
 * Request framing at the edge, through a real control plane's front door: a chunked body is read
 * strictly (RFC 9112 §7.1), so what a lenient reader and a proxy in front would split differently
 * (a bare LF after the last chunk that makes the next request a "trailer", control bytes in an
 * extension, a trailer that is no field line) is refused with 400 rather than guessed at.
 */
import { assertEquals, assertMatch } from "../../tests/assert.ts";
import { startTestControlPlane } from "../../tests/helpers/control_plane.ts";
import { RawClient } from "../../tests/helpers/raw_http.ts";

const chatBody = JSON.stringify({
  model: "demo",
  messages: [{ role: "user", content: "hi" }],
  max_tokens: 4,
});

Deno.test("edge framing: a chat body with a bare LF after its last chunk, an LF or NUL in an extension, or a trailer without a colon gets 400; valid extensions and trailers are served", async () => {
  const t = await startTestControlPlane();
  const port = Number(new URL(t.cp.url).port);
  const head =
    `POST /v1/chat/completions HTTP/1.1\r\nhost: a\r\nauthorization: Bearer ${t.key}\r\n` +
    `content-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`;
  const size = chatBody.length.toString(16);
  const pipelined = `GET /v1/models HTTP/1.1\r\nhost: a\r\nauthorization: Bearer ${t.key}\r\n\r\n`;
  const ask = async (wire: string) => {
    const c = await RawClient.connect(port);
    try {
      await c.send(head + wire);
      const a = await c.answer(5_000);
      return { status: a?.status, body: a?.body ?? "" };
    } finally {
      c.close();
    }
  };
  try {
    const vectors = {
      "a bare LF after the last chunk, a request pipelined after it":
        `${size}\r\n${chatBody}\r\n0\r\n\n${pipelined}`,
      "an LF in an extension": `${size};a\nb\r\n${chatBody}\r\n0\r\n\r\n`,
      "a NUL in an extension": `${size};a=\0\r\n${chatBody}\r\n0\r\n\r\n`,
      "a trailer line without a colon": `${size}\r\n${chatBody}\r\n0\r\nno-colon\r\n\r\n`,
    };
    for (const [what, wire] of Object.entries(vectors)) {
      const a = await ask(wire);
      assertEquals(a.status, 400, `${what}: ${a.body}`);
      assertMatch(a.body, /invalid_request/);
    }
    const fine = await ask(
      `${size};name=value;q="a \\" b"\r\n${chatBody}\r\n0\r\nx-checksum: 1\r\nx-empty:\r\n\r\n`,
    );
    assertEquals(fine.status, 200, fine.body);
  } finally {
    await t.close();
  }
});
