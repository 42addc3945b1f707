import { assert, assertEquals, assertMatch } from "../../tests/assert.ts";
import { startHarness } from "../../tests/helpers/harness.ts";
import { addReplica, chat, fakeServer, usageRows } from "../../tests/helpers/routing.ts";

/** An engine like llama.cpp: a 500 for `n: 2` (its own message), a normal answer otherwise. */
function strictEngine() {
  return fakeServer(async (req) => {
    const body = await req.json();
    if (body.n === 2) {
      return Response.json({
        error: {
          code: 500,
          message: "Only one completion choice is allowed",
          type: "server_error",
        },
      }, { status: 500 });
    }
    return Response.json({
      id: "x",
      object: "chat.completion",
      choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 3, completion_tokens: 1 },
    });
  });
}

Deno.test("50 requests two engines refuse alike with a 500 are the request's fault: a 400 with the engine's message, every breaker closed", async () => {
  const h = await startHarness({ breakerFailures: 3, breakerCooldownMs: 30_000 });
  const a = strictEngine();
  const b = strictEngine();
  try {
    h.deps.replicas.remove("r1");
    addReplica(h, "a", a.url);
    addReplica(h, "b", b.url);
    // The first six reach the engines; past five the key is held off a while (key_backoff.ts),
    // each refusal a 429 instead of the engines' work.
    let refused = 0;
    for (let i = 0; i < 50; i++) {
      const res = await h.v1("/chat/completions", chat(`bad ${i}`, { n: 2 }));
      const err = (await res.json()).error;
      if (res.status === 429) {
        assert(i >= 6, `request ${i} was held off`);
        assertEquals(err.code, "request_backoff");
        assert(Number(res.headers.get("retry-after")) >= 1);
        refused++;
        continue;
      }
      assertEquals(res.status, 400);
      assertEquals(err.code, "invalid_request");
      assertMatch(err.message, /Only one completion choice is allowed/);
    }
    assert(refused > 0, "the key was never held off");
    assertEquals(h.deps.replicas.get("a")?.breaker.state(), "closed");
    assertEquals(h.deps.replicas.get("b")?.breaker.state(), "closed");
    const started = performance.now();
    const other = await h.deps.keys.create({ name: "other" });
    const good = await h.v1("/chat/completions", chat("hello"), {
      headers: { authorization: `Bearer ${other.key}` },
    });
    const ms = performance.now() - started;
    assertEquals(good.status, 200);
    await good.body?.cancel();
    assert(ms < 1_000, `the next valid request took ${Math.round(ms)} ms`);
    const rows = await usageRows(h);
    assertEquals(rows.filter((r) => r.status === 400).length, 50 - refused);
  } finally {
    await a.close();
    await b.close();
    await h.close();
  }
});

Deno.test("a 500 one replica gives and another does not is the endpoint's: its breaker is charged", async () => {
  const h = await startHarness({ breakerFailures: 2, breakerCooldownMs: 30_000 });
  const broken = fakeServer(() =>
    Response.json({ error: { message: "CUDA error: out of memory" } }, { status: 500 })
  );
  const fine = strictEngine();
  const otherBroken = fakeServer(() =>
    Response.json({ error: { message: "slot unavailable" } }, { status: 500 })
  );
  try {
    h.deps.replicas.remove("r1");
    addReplica(h, "broken", broken.url);
    addReplica(h, "fine", fine.url);
    for (let i = 0; i < 4; i++) {
      const res = await h.v1("/chat/completions", chat("hi"), {
        headers: { "x-llmgw-profile": "batch" },
      });
      assertEquals(res.status, 200);
      await res.body?.cancel();
    }
    assertEquals(h.deps.replicas.get("broken")?.breaker.state(), "open");
    assertEquals(h.deps.replicas.get("fine")?.breaker.state(), "closed");

    // Two replicas that fail differently: both are charged, and the client hears the last 500.
    h.deps.replicas.remove("broken");
    h.deps.replicas.remove("fine");
    addReplica(h, "x", otherBroken.url);
    addReplica(h, "y", broken.url);
    const res = await h.v1("/chat/completions", chat("hi"));
    assertEquals(res.status, 500);
    await res.body?.cancel();
    const failures = ["x", "y"].map((id) => h.deps.replicas.get(id)!.breaker);
    // One more each opens them (two failures): each was charged once.
    for (const br of failures) br.failure();
    assertEquals(failures.map((br) => br.state()), ["open", "open"]);
  } finally {
    await broken.close();
    await fine.close();
    await otherBroken.close();
    await h.close();
  }
});
