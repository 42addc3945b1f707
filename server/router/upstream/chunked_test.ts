import { assert, assertEquals, assertThrows } from "../../../tests/assert.ts";
import { chunkedDecoder } from "./chunked.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Feeds `wire` cut at every given offset; returns the body and whether the end was seen. */
function decodeInPieces(wire: string, cuts: number[]): { body: string; ended: boolean } {
  const bytes = enc.encode(wire);
  const d = chunkedDecoder();
  let body = "";
  let ended = false;
  let from = 0;
  for (const to of [...cuts, bytes.byteLength]) {
    const piece = bytes.slice(from, to);
    from = to;
    const r = d.decode(piece);
    assertEquals(r.extra, false);
    body += dec.decode(r.data);
    ended ||= r.ended;
  }
  return { body, ended };
}

const wire = "5\r\nhello\r\n7;ext=1\r\n, world\r\nA\r\n0123456789\r\n0\r\n\r\n";

Deno.test("chunked: a whole answer in one piece", () => {
  assertEquals(decodeInPieces(wire, []), { body: "hello, world0123456789", ended: true });
});

Deno.test("chunked: cut at every byte boundary gives the same body", () => {
  for (let cut = 1; cut < wire.length; cut++) {
    assertEquals(decodeInPieces(wire, [cut]), { body: "hello, world0123456789", ended: true });
  }
  const everyByte = [...Array(wire.length).keys()].slice(1);
  assertEquals(decodeInPieces(wire, everyByte), { body: "hello, world0123456789", ended: true });
});

Deno.test("chunked: trailers are read and dropped; not ended until the blank line", () => {
  assertEquals(decodeInPieces("3\r\nabc\r\n0\r\nx-t: 1\r\n", []), { body: "abc", ended: false });
  assertEquals(decodeInPieces("3\r\nabc\r\n0\r\nx-t: 1\r\n\r\n", []), { body: "abc", ended: true });
});

Deno.test("chunked: bytes after the end are reported", () => {
  const r = chunkedDecoder().decode(enc.encode("0\r\n\r\nHTTP/1.1 200 OK"));
  assertEquals([r.ended, r.extra], [true, true]);
});

Deno.test("chunked: malformed framing is refused", () => {
  for (const bad of ["zz\r\n", "\r\n", "3\r\nabcX", "3\nabc", "12345678901\r\n"]) {
    assertThrows(() => chunkedDecoder().decode(enc.encode(bad)), Error);
  }
});

Deno.test("chunked: an extension or trailer section past its bound is refused, in whatever pieces it comes", () => {
  const d = chunkedDecoder();
  d.decode(enc.encode("5;"));
  for (let i = 0; i < 4; i++) d.decode(enc.encode("a".repeat(1024)));
  assertThrows(() => d.decode(enc.encode("a")), Error, "extension is too long");
  const t = chunkedDecoder();
  t.decode(enc.encode("0\r\n"));
  for (let i = 0; i < 15; i++) t.decode(enc.encode("x-t: " + "a".repeat(1017) + "\r\n"));
  assertThrows(
    () => t.decode(enc.encode("x-t: " + "a".repeat(1100))),
    Error,
    "trailers are too long",
  );
  const ok = chunkedDecoder().decode(
    enc.encode(`3;${"e".repeat(4000)}\r\nabc\r\n0\r\nx: 1\r\n\r\n`),
  );
  assertEquals(new TextDecoder().decode(ok.data), "abc");
  assert(ok.ended);
});
