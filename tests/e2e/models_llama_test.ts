/**
 * `ctl model serve tiny-random-llama.gguf` on the real llama.cpp engine: plan (GGUF header read by
 * the control plane), add, placed by the reconciler on a CPU-only agent, started by it with the
 * placement's profile, smoke-tested, and answering through /v1. Skipped, saying why, unless
 * LLAMA_SERVER names a llama-server binary and the fixture is present.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { usage } from "../../db/schema.ts";
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

type Row = typeof usage.$inferSelect;
// This llama.cpp build refuses a tool without a description.
const timeTool = {
  type: "function",
  function: {
    name: "get_time",
    description: "The time now",
    parameters: { type: "object", properties: {} },
  },
};

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

    // Tools need llama-server's chat template (--jinja); without it every such request is a 500.
    // The tiny GGUF's weights are random, so only a forced call ("required") is sure to parse.
    const auto = await c.chat(key, "tiny", { tools: [timeTool], max_tokens: 8 });
    assertEquals(auto.status, 200, await auto.clone().text());
    const forced = await c.chat(key, "tiny", {
      tools: [timeTool],
      tool_choice: "required",
      max_tokens: 256,
    });
    assertEquals(forced.status, 200, await forced.clone().text());
    const call = (await forced.json()).choices[0].message.tool_calls?.[0];
    assertEquals(call?.function?.name, "get_time", "a forced call is parsed into tool_calls");

    // The same long prompt twice: the second is taken from the slot's cache, and its usage row
    // says so (this llama.cpp build reports no cache_n: prompt_tokens - timings.prompt_n).
    const prompt = [...Array(400).keys()].map((i) => `word${i}`).join(" ");
    const long = { messages: [{ role: "user", content: prompt }], max_tokens: 2 };
    for (let i = 0; i < 2; i++) {
      const r = await c.chat(key, "tiny", long);
      assertEquals(r.status, 200, await r.clone().text());
      await r.json();
    }
    const rows = await eventually("both usage rows written", async () => {
      const all = await c.cp.deps.store.db.select().from(usage);
      const long = all.filter((r) => r.promptTokens > 1000);
      return long.length === 2 ? long : undefined;
    }, 20_000);
    const [first, second] = rows.sort((a, b) => a.at - b.at) as [Row, Row];
    assert(first.cachedTokens < first.promptTokens / 2, `first: ${first.cachedTokens} cached`);
    assert(
      second.cachedTokens >= second.promptTokens - 4,
      `second: ${second.cachedTokens} of ${second.promptTokens} cached`,
    );
  } finally {
    await c.close();
  }
});
