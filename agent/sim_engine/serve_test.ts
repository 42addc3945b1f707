import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { startSimEngine } from "./serve.ts";

Deno.test("closing the engine cuts streams in flight, turns the queue away and returns promptly", async () => {
  const engine = await startSimEngine({ slots: 1, tokensPerSecond: 10 });
  const body = JSON.stringify({
    messages: [{ role: "user", content: "hi" }],
    max_tokens: 500,
    stream: true,
  });
  const post = () => fetch(`${engine.url}/v1/chat/completions`, { method: "POST", body });
  const streaming = await post();
  const reader = streaming.body!.getReader();
  await reader.read();
  const queued = post();
  await new Promise((r) => setTimeout(r, 50));
  const t0 = performance.now();
  await engine.close();
  assert(performance.now() - t0 < 1000, "close waited for generation to finish");
  const queuedRes = await queued;
  assertEquals(queuedRes.status, 503);
  assertEquals((await queuedRes.json()).error.type, "server_error");
  // The stream must end in an error, not look like a complete answer.
  let failed = false;
  try {
    while (!(await reader.read()).done);
  } catch {
    failed = true;
  }
  assert(failed, "stream ended cleanly after shutdown");
  await engine.close();
});
