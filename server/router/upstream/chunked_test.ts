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

/** What becomes of `wire`, fed in one piece and a byte at a time alike. */
function outcome(wire: string): "ended" | "more" | "refused" {
  const outcomes = [[wire], [...wire]].map((pieces) => {
    const d = chunkedDecoder();
    try {
      let ended = false;
      for (const p of pieces) ended = d.decode(enc.encode(p)).ended;
      return ended ? "ended" : "more";
    } catch {
      return "refused";
    }
  });
  assertEquals(outcomes[0], outcomes[1], `${JSON.stringify(wire)} depends on how it is cut`);
  return outcomes[0]!;
}

Deno.test("chunked: RFC 9112 §7.1 strictly: CRLF only, extensions as ;token[=token|quoted-string], trailers as field lines", () => {
  const refused = [
    "3\nabc\r\n0\r\n\r\n",
    "3\r\nabc\n0\r\n\r\n",
    "3\r\nabc\r\n0\n\r\n",
    // A bare LF after the last chunk: a lenient reader takes what follows for trailers.
    "3\r\nabc\r\n0\r\n\n",
    "3;a\nb\r\nabc\r\n0\r\n\r\n",
    "3;a\0b\r\nabc\r\n0\r\n\r\n",
    "3;a=\0\r\nabc\r\n0\r\n\r\n",
    '3;a="x\0"\r\nabc\r\n0\r\n\r\n',
    '3;a="x\nb"\r\nabc\r\n0\r\n\r\n',
    "3;\r\nabc\r\n0\r\n\r\n",
    "3;a=\r\nabc\r\n0\r\n\r\n",
    '3;a="open\r\nabc\r\n0\r\n\r\n',
    "3;a=b c\r\nabc\r\n0\r\n\r\n",
    '3;a="q"x\r\nabc\r\n0\r\n\r\n',
    "3;a \r\nabc\r\n0\r\n\r\n",
    "3 \r\nabc\r\n0\r\n\r\n",
    "3;=b\r\nabc\r\n0\r\n\r\n",
    "3;a@b\r\nabc\r\n0\r\n\r\n",
    // Trailers: a name and a colon, nothing before the colon, no control bytes, no fold.
    "3\r\nabc\r\n0\r\nno-colon\r\n\r\n",
    "3\r\nabc\r\n0\r\nx-a : 1\r\n\r\n",
    "3\r\nabc\r\n0\r\n: 1\r\n\r\n",
    "3\r\nabc\r\n0\r\nx-a: 1\r\n folded\r\n\r\n",
    "3\r\nabc\r\n0\r\nx-a: 1\0\r\n\r\n",
    "3\r\nabc\r\n0\r\nx-a: 1\x7f\r\n\r\n",
    "3\r\nabc\r\n0\r\nx-a: 1\nx-b: 2\r\n\r\n",
    "3\r\nabc\r\n0\r\nx-a: 1\r\n\n",
  ];
  for (const wire of refused) assertEquals(outcome(wire), "refused", JSON.stringify(wire));
  const fine = [
    "3;a\r\nabc\r\n0\r\n\r\n",
    "3;a=b\r\nabc\r\n0;last\r\n\r\n",
    '3 ; a = b ;c="q \\" \\\\ x"\r\nabc\r\n0\r\n\r\n',
    '3;a="é; =,"\t;b\r\nabc\r\n0\r\n\r\n',
    "3\r\nabc\r\n0\r\nx-a: 1\r\nx-b:\r\nx-c: \t v \xe9 \r\n\r\n",
  ];
  for (const wire of fine) assertEquals(outcome(wire), "ended", JSON.stringify(wire));
});

Deno.test("chunked: `used` says where the body ends, so what follows (a pipelined request) is kept", () => {
  const d = chunkedDecoder();
  const bytes = enc.encode("3\r\nabc\r\n0\r\nx: 1\r\n\r\nGET / HTTP/1.1\r\n");
  const r = d.decode(bytes);
  assertEquals([r.ended, r.extra, dec.decode(r.data)], [true, true, "abc"]);
  assertEquals(dec.decode(bytes.subarray(r.used)), "GET / HTTP/1.1\r\n");
  const whole = chunkedDecoder().decode(enc.encode("0\r\n\r\n"));
  assertEquals([whole.ended, whole.extra, whole.used], [true, false, 5]);
});
