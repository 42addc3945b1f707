import { assert, assertEquals } from "../../tests/assert.ts";
import { startHarness } from "../../tests/helpers/harness.ts";
import { addSimReplica, chat } from "../../tests/helpers/routing.ts";

const noDescription = {
  tools: [{ type: "function", function: { name: "f", parameters: { type: "object" } } }],
};

/** The client mistakes llama-server answers with a 500. */
const mistakes = [
  chat("two", { n: 2 }),
  chat("tool", noDescription),
  { model: "demo", max_tokens: 4, messages: "hello" },
];

Deno.test("a lone replica answering a key's mistakes with llama.cpp's 500s: 4xx each, no breaker opens, another key is answered at once", async () => {
  const h = await startHarness({ breakerFailures: 5, breakerCooldownMs: 30_000 });
  h.deps.replicas.remove("r1");
  const engine = await addSimReplica(h, "lone", { quirks: "llamacpp" });
  try {
    for (let i = 0; i < 20; i++) {
      const res = await h.v1("/chat/completions", mistakes[i % mistakes.length]);
      const err = (await res.json()).error;
      assert(res.status >= 400 && res.status < 500, `request ${i}: ${res.status}`);
      assert(["invalid_request", "request_backoff"].includes(err.code), err.code);
      assertEquals(typeof err.message, "string");
    }
    assertEquals(h.deps.replicas.get("lone")?.breaker.state(), "closed");
    const other = await h.deps.keys.create({ name: "other" });
    const started = performance.now();
    const good = await h.v1("/chat/completions", chat("hello"), {
      headers: { authorization: `Bearer ${other.key}` },
    });
    const ms = performance.now() - started;
    assertEquals(good.status, 200);
    await good.body?.cancel();
    assert(ms < 2_000, `the other key's request took ${Math.round(ms)} ms`);
  } finally {
    await engine.close();
    await h.close();
  }
});

Deno.test("a llama.cpp model meets its engine's quirks first: n > 1 and string messages are 400s naming the field, a tool gets a description", async () => {
  const h = await startHarness();
  await h.deps.catalog.upsert({ name: "llama", engine: "llamacpp", source: "x.gguf" });
  const engine = await addSimReplica(h, "l1", { quirks: "llamacpp", model: "llama" });
  try {
    const n2 = await h.v1("/chat/completions", { ...chat("two", { n: 2 }), model: "llama" });
    assertEquals(n2.status, 400);
    assertEquals((await n2.json()).error.param, "n");
    const str = await h.v1("/chat/completions", { model: "llama", messages: "hi" });
    assertEquals(str.status, 400);
    assertEquals((await str.json()).error.param, "messages");
    const tool = await h.v1("/chat/completions", {
      ...chat("tool", noDescription),
      model: "llama",
    });
    assertEquals(tool.status, 200);
    await tool.body?.cancel();
  } finally {
    await engine.close();
    await h.close();
  }
});
