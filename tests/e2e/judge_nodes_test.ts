/**
 * A judge served on the cluster like any other model: two agents (nodes `a` and `b`) each run one
 * replica of it, launched by the agent as `llmgw sim-engine --judge …` from the catalog's
 * profile. The one on `a` is slow and would call the text safe; the one on `b` is quick and calls
 * it unsafe. Every request is blocked within the budget: whichever replica is asked first, the
 * other node's verdict comes by half the budget when `a` is slow. Without hedging, a request
 * whose first question went to `a` would pass.
 */
import { assert, assertEquals } from "../assert.ts";
import { eventually, quickAgentFlags } from "../helpers/llmgw_process.ts";
import { quickClusterFlags, startClusterControlPlane } from "../helpers/control_plane.ts";

Deno.test({
  name: "a judge on two nodes: a slow replica on one is hedged by the other's, within the budget",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const root = await Deno.makeTempDir({ prefix: "llmgw-judge-" });
  const c = await startClusterControlPlane(root, { flags: { ...quickClusterFlags } });
  try {
    const port = 42000 + Math.floor(Math.random() * 5000);
    for (const [name, ports] of [["a", port], ["b", port + 30]] as const) {
      await c.joinAgent(name, {
        labels: { zone: name },
        args: [
          ...quickAgentFlags,
          "--resources-memory-mb",
          "1024",
          "--engines-ports",
          `${ports}-${ports + 20}`,
        ],
      });
    }
    await c.addModel(`
name: guard
source: /models/guard.gguf
judge: { format: llama-guard-3 }
scaling: { min: 2, max: 2 }
profiles:
  - engine: sim
    memory_gb: 0.6
    cores: 1
    node_selector: { zone: a }
    args: [--judge, llama-guard-3, --judge-delay-ms, "1500"]
  - engine: sim
    memory_gb: 0.6
    cores: 1
    node_selector: { zone: b }
    args: [--judge, llama-guard-3, --judge-unsafe, bomb]
`);
    await c.addModel(`
name: chat
source: /models/chat.gguf
profiles: [{ engine: sim, memory_gb: 0.2, cores: 1 }]
`);
    const ready = await eventually("both judges and the chat model ready", async () => {
      const judges = (await c.replicas("guard")).filter((r) => r.state === "ready");
      const chat = (await c.replicas("chat")).filter((r) => r.state === "ready");
      return judges.length === 2 && chat.length === 1 ? judges : undefined;
    }, 90_000).catch(async (e) => {
      const explain = await c.ctl("model", "explain", "guard");
      throw new Error(
        `${e.message}\n${explain.text}\n${JSON.stringify(await c.replicas("guard"))}\n${
          JSON.stringify(await c.replicas("chat"))
        }`,
      );
    });
    assertEquals(ready.map((r) => r.node).sort(), ["a", "b"]);
    const put = await c.admin("PUT", "guard/policies/safety", {
      scope: { kind: "global", id: "global" },
      apply_to: "input",
      rules: [{ name: "judge", kind: "judge", action: "block", model: "guard", budget_ms: 1200 }],
    });
    assertEquals(put.status, 201, JSON.stringify(put.body));
    const { key } = (await c.admin("POST", "keys", { name: "judged" })).body;
    // Turns are taken among idle replicas, so some of these ask `a` first.
    for (let i = 0; i < 4; i++) {
      const t0 = performance.now();
      const res = await c.chat(key, "chat", {
        messages: [{ role: "user", content: "how to make a bomb" }],
      });
      const ms = performance.now() - t0;
      assertEquals(res.status, 400, await res.clone().text());
      assertEquals((await res.json()).error.code, "guardrail_blocked");
      assert(ms < 1400, `answered after ${ms} ms`);
    }
    const safe = await c.chat(key, "chat", { messages: [{ role: "user", content: "hello" }] });
    assertEquals(safe.status, 200, await safe.clone().text());
    await safe.body?.cancel();
  } finally {
    await c.close();
  }
});
