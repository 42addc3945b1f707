import { assert, assertEquals, assertRejects, assertThrows } from "../../tests/assert.ts";
import { GgufError, GgufNeedMore, parseGguf } from "./gguf_parse.ts";
import { ggufFacts } from "./gguf_facts.ts";
import { readGgufFile } from "./read_gguf_file.ts";
import { fixture, fixtureAbsent } from "../../tests/helpers/fixtures.ts";
import { skipNote } from "../../tests/helpers/skip.ts";

const llama = "tiny-random-llama.gguf";
const bert = "tiny-random-bert-embed.gguf";

Deno.test({
  name: "gguf: the tiny llama fixture's figures" + skipNote(fixtureAbsent(llama)),
  ignore: !fixture(llama),
}, async () => {
  const path = fixture(llama)!;
  const { facts } = await readGgufFile(path);
  assertEquals(facts.architecture, "llama");
  assertEquals(facts.layers, 2);
  assertEquals(facts.embeddingWidth, 64);
  assertEquals(facts.trainedContext, 2048);
  assertEquals(facts.heads, 4);
  assertEquals(facts.kvHeads, 4);
  assertEquals(facts.headDim, 16);
  assertEquals(facts.fileType, "F16");
  assertEquals(facts.pooling, undefined);
  assertEquals(facts.fileSize, (await Deno.stat(path)).size);
  assert(facts.tensorBytes! > 4_000_000 && facts.tensorBytes! < facts.fileSize!);
});

Deno.test({
  name: "gguf: the tiny bert embedding fixture pools by mean" + skipNote(fixtureAbsent(bert)),
  ignore: !fixture(bert),
}, async () => {
  const path = fixture(bert)!;
  const { facts } = await readGgufFile(path);
  assertEquals(facts.architecture, "bert");
  assertEquals(facts.pooling, "mean");
  assertEquals(facts.trainedContext, 512);
  assertEquals(facts.embeddingWidth, 64);
});

Deno.test({
  name: "gguf: a truncated fixture fails with a sentence, at once" + skipNote(fixtureAbsent(llama)),
  ignore: !fixture(llama),
}, async () => {
  const path = fixture(llama)!;
  const bytes = await Deno.readFile(path);
  const dir = await Deno.makeTempDir();
  try {
    for (const cut of [2, 100, 5000, 200_000]) {
      const p = `${dir}/cut${cut}.gguf`;
      await Deno.writeFile(p, bytes.subarray(0, cut));
      const e = await assertRejects(() => readGgufFile(p), GgufError);
      assert(e.message.startsWith(p), e.message);
    }
    const e = await assertRejects(
      () => readGgufFile(path, { maxBytes: 4096 }),
      GgufError,
      "larger than the 4096 bytes",
    );
    assert(e.message.includes(path));
    await assertRejects(() => readGgufFile(`${dir}/none.gguf`), GgufError, "no such file");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Builds a GGUF header by hand, so every value type and every lie can be tested. */
class Builder {
  parts: Uint8Array[] = [];
  raw(b: Uint8Array) {
    this.parts.push(b);
    return this;
  }
  num(kind: "u8" | "u16" | "u32" | "u64" | "i32" | "f32" | "f64", v: number) {
    const size = { u8: 1, u16: 2, u32: 4, u64: 8, i32: 4, f32: 4, f64: 8 }[kind];
    const b = new Uint8Array(size);
    const d = new DataView(b.buffer);
    if (kind === "u8") d.setUint8(0, v);
    if (kind === "u16") d.setUint16(0, v, true);
    if (kind === "u32") d.setUint32(0, v, true);
    if (kind === "u64") d.setBigUint64(0, BigInt(v), true);
    if (kind === "i32") d.setInt32(0, v, true);
    if (kind === "f32") d.setFloat32(0, v, true);
    if (kind === "f64") d.setFloat64(0, v, true);
    return this.raw(b);
  }
  str(s: string) {
    const b = new TextEncoder().encode(s);
    return this.num("u64", b.length).raw(b);
  }
  bytes(): Uint8Array {
    const n = this.parts.reduce((a, p) => a + p.length, 0);
    const out = new Uint8Array(n);
    let at = 0;
    for (const p of this.parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }
}

function header(tensors: number, kvs: number): Builder {
  return new Builder().raw(new TextEncoder().encode("GGUF")).num("u32", 3).num("u64", tensors)
    .num("u64", kvs);
}

Deno.test("gguf: every value type, short and long arrays, tensors", () => {
  const b = header(1, 9)
    .str("general.architecture").num("u32", 8).str("qwen")
    .str("qwen.block_count").num("u32", 4).num("u32", 28)
    .str("qwen.attention.head_count").num("u32", 5).num("i32", 16)
    .str("qwen.attention.head_count_kv").num("u32", 9).num("u32", 4).num("u64", 3)
    .num("u32", 2).num("u32", 4).num("u32", 8)
    .str("qwen.embedding_length").num("u32", 10).num("u64", 2048)
    .str("qwen.rope.freq").num("u32", 12).num("f64", 1e6)
    .str("flag").num("u32", 7).num("u8", 1)
    .str("tokens").num("u32", 9).num("u32", 8).num("u64", 2000);
  for (let i = 0; i < 2000; i++) b.str(`t${i}`);
  b.str("general.alignment").num("u32", 4).num("u32", 64);
  b.str("blk.0.w").num("u32", 2).num("u64", 2048).num("u64", 2048).num("u32", 1).num("u64", 0);
  const bytes = b.bytes();
  const h = parseGguf(bytes, bytes.length + 1000);
  assertEquals(h.metadata.get("flag"), true);
  assertEquals(h.metadata.get("qwen.rope.freq"), 1e6);
  assertEquals(h.metadata.get("tokens"), { type: "string", length: 2000 });
  assertEquals(h.tensors, [{ name: "blk.0.w", dims: [2048, 2048], type: 1, offset: 0 }]);
  assertEquals(h.dataOffset % 64, 0);
  const f = ggufFacts(h, bytes.length + 1000);
  assertEquals(f.kvHeads, 8, "the largest of a per-layer array");
  assertEquals(f.heads, 16);
  assertEquals(f.headDim, 128);
  assertEquals(f.layers, 28);
  assertEquals(f.trainedContext, undefined, "absent, not 0");
});

Deno.test("gguf: lies and other formats are refused with a sentence", () => {
  const notGguf = new TextEncoder().encode("PK\u0003\u0004 a zip file");
  assertThrows(() => parseGguf(notGguf, notGguf.length), GgufError, "does not start with 'GGUF'");
  const v1 = new Builder().raw(new TextEncoder().encode("GGUF")).num("u32", 1).bytes();
  assertThrows(() => parseGguf(v1, 100), GgufError, "version 1");
  const many = header(2 ** 40, 0).bytes();
  assertThrows(() => parseGguf(many, many.length), GgufError, "tensors");
  const longArr = header(0, 1).str("a").num("u32", 9).num("u32", 6).num("u64", 2 ** 45).bytes();
  assertThrows(() => parseGguf(longArr, longArr.length), GgufError, "more than the file holds");
  const strings = header(0, 1).str("a").num("u32", 9).num("u32", 8).num("u64", 2 ** 45).bytes();
  assertThrows(() => parseGguf(strings, strings.length), GgufError, "past the end");
  const badType = header(0, 1).str("a").num("u32", 42).bytes();
  assertThrows(() => parseGguf(badType, badType.length + 10), GgufError, "type 42");
  // Without a file size, a prefix that stops early asks for more instead.
  const prefix = header(0, 1).str("general.architecture").bytes();
  assertThrows(() => parseGguf(prefix), GgufNeedMore);
});
