/**
 * The shutdown grace, when it runs out: a stream still open is cut, the engine request is
 * aborted, and its usage row is written as the client's leaving (499), not lost.
 */
import { assert, assertEquals } from "../assert.ts";
import { startTestControlPlane } from "../helpers/control_plane.ts";
import { usage } from "../../db/schema.ts";
import { startSimEngine } from "../../agent/sim_engine/serve.ts";

Deno.test("drain: past the grace a stream in flight is cut and recorded as 499", async () => {
  const t = await startTestControlPlane();
  // Its own slow engine: 500 tokens at 20 a second is 25 s, far longer than the grace, and well
  // inside any context limit (an engine that stops early would end the stream with a 200).
  const slow = await startSimEngine({ model: "slow", tokensPerSecond: 20, apiKey: "slow-key" });
  try {
    await t.cp.deps.catalog.upsert({ name: "slow", engine: "sim", source: "" });
    t.cp.deps.replicas.upsert({
      id: "local/slow",
      model: "slow",
      baseUrl: slow.url,
      apiKey: "slow-key",
      state: "ready",
    });
    const res = await t.chat({
      model: "slow",
      stream: true,
      max_tokens: 500,
      messages: [{ role: "user", content: "go on for a while" }],
    });
    assertEquals(res.status, 200);
    const id = res.headers.get("x-request-id");
    const reader = res.body!.getReader();
    await reader.read();
    const started = performance.now();
    const drained = t.cp.drain(300);
    // The client sees its stream end (cut) rather than run its 20 s.
    const ended = (async () => {
      try {
        for (;;) if ((await reader.read()).done) return;
      } catch {
        return;
      }
    })();
    await Promise.all([drained, ended]);
    const took = performance.now() - started;
    assert(took < 5_000, `the cut came after ${Math.round(took)} ms`);
    let row;
    for (let i = 0; i < 100 && !row; i++) {
      await new Promise((r) => setTimeout(r, 50));
      row = (await t.cp.deps.store.db.select().from(usage)).find((r) => r.requestId === id);
    }
    assert(row, "the cut stream's usage row was written");
    assertEquals(row.status, 499);
    assert(row.completionTokens > 0, "the tokens sent before the cut are counted");
  } finally {
    await t.close();
    await slow.close();
  }
});
