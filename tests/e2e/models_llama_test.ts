/**
 * `ctl model serve tiny-random-llama.gguf` on the real llama.cpp engine: plan (GGUF header read by
 * the control plane), add, placed by the reconciler on a CPU-only agent, started by it with the
 * placement's profile, smoke-tested, and answering through /v1. Skipped, saying why, unless
 * LLAMA_SERVER names a llama-server binary and the fixture is present.
 */
import { assertEquals, assertMatch } from "../assert.ts";
import { eventually } from "../helpers/llmgw_process.ts";
import { startClusterControlPlane } from "../helpers/control_plane.ts";
import { fixture, fixtureAbsent } from "../helpers/fixtures.ts";
import { skipNote } from "../helpers/skip.ts";
import { createLogger } from "../../core/log.ts";

const llama = Deno.env.get("LLAMA_SERVER");
const gguf = fixture("tiny-random-llama.gguf");
const why = llama
  ? fixtureAbsent("tiny-random-llama.gguf")
  : "set LLAMA_SERVER to a llama-server binary";

Deno.test({
  name: "ctl model serve: a GGUF on the real llama.cpp engine answers through /v1" + skipNote(why),
  ignore: !!why,
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const root = await Deno.makeTempDir({ prefix: "llmgw-serve-" });
  const c = await startClusterControlPlane(root, {
    flags: { "nodes-heartbeat-ms": "300", "reconciler-interval-ms": "300" },
    logger: createLogger({ level: "warn" }),
  });
  // Away from the default range, which other programs on a shared machine may hold.
  const port = 42000 + Math.floor(Math.random() * 5000);
  const agent = await c.joinAgent("cpu", {
    args: ["--engines-ports", `${port}-${port + 20}`, "--engines-llama-server", llama!],
  });
  try {
    await eventually("the node reporting its engines", async () => {
      const nodes = (await c.admin("GET", "nodes")).body.data as { engines?: unknown[] }[];
      return nodes[0]?.engines ? true : undefined;
    }, 30_000);
    const served = await c.ctl("model", "serve", gguf!, "--name", "tiny", "--wait-ms", "60000");
    assertEquals(served.code, 0, served.text + "\n" + agent.output());
    assertMatch(served.text, /tiny answers: a chat completion/);
    const { key } = (await c.admin("POST", "keys", { name: "serve" })).body;
    const res = await c.chat(key, "tiny");
    assertEquals(res.status, 200, await res.clone().text());
    assertEquals((await res.json()).object, "chat.completion");
  } finally {
    await c.close();
  }
});
