/**
 * A real llama-server behind `llmgw up --model`, serving the tiny random GGUF fixture. Runs only
 * when LLAMA_SERVER names the binary and the fixture is found (LLMGW_FIXTURES, else the shared
 * fixtures beside the repository): CI has neither and relies on the simulated engine.
 */
import OpenAI from "openai";
import { assert, assertEquals } from "../assert.ts";
import { startAppliance } from "../helpers/appliance.ts";
import { fixture as findFixture, fixturesDir } from "../helpers/fixtures.ts";

const llamaServer = Deno.env.get("LLAMA_SERVER");
const fixture = llamaServer ? findFixture("tiny-random-llama.gguf") : undefined;
const why = !llamaServer
  ? "set LLAMA_SERVER to a llama-server binary to run it"
  : !fixture
  ? `no tiny-random-llama.gguf in ${fixturesDir()} (set LLMGW_FIXTURES to its folder)`
  : "";
if (why) console.warn(`llama_server_test: skipped, ${why}`);

Deno.test({
  name: `llmgw up --model serves a GGUF through a real llama-server${
    why ? ` (skipped: ${why})` : ""
  }`,
  ignore: why !== "",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const app = await startAppliance({
      args: ["--model", fixture!, "--engines-llama-server", llamaServer!],
      timeoutMs: 120_000,
    });
    try {
      const client = new OpenAI({ baseURL: `${app.url}/v1`, apiKey: app.key, maxRetries: 0 });
      const models = await client.models.list();
      assertEquals(models.data.map((m) => m.id), ["tiny-random-llama"]);
      const stream = await client.chat.completions.create({
        model: "tiny-random-llama",
        messages: [{ role: "user", content: "Hello" }],
        max_tokens: 16,
        stream: true,
        stream_options: { include_usage: true },
      });
      let chunks = 0;
      let usage: OpenAI.CompletionUsage | undefined;
      for await (const chunk of stream) {
        chunks++;
        usage = chunk.usage ?? usage;
      }
      assert(chunks > 1, "the answer arrived in pieces");
      assert((usage?.completion_tokens ?? 0) > 0, "usage was reported");

      // `up` starts llama-server with its chat template (--jinja), so `tools` are answered; the
      // random weights make a parsed call certain only when one is forced.
      const tools: OpenAI.ChatCompletionTool[] = [{
        type: "function",
        function: {
          name: "get_time",
          description: "The time now",
          parameters: { type: "object", properties: {} },
        },
      }];
      const ask = {
        model: "tiny-random-llama",
        messages: [{ role: "user" as const, content: "time?" }],
      };
      await client.chat.completions.create({ ...ask, tools, max_tokens: 8 });
      const forced = await client.chat.completions.create({
        ...ask,
        tools,
        tool_choice: "required",
        max_tokens: 256,
      });
      const call = forced.choices[0]?.message.tool_calls?.[0];
      assertEquals(call?.type === "function" ? call.function.name : undefined, "get_time");

      // Rounds of concurrent requests (41 in all, inside the default 60 a minute) over kept-alive
      // connections, with a pause longer than the engine's keep-alive: llama-server closes kept
      // connections on its own terms, and the router must never answer 502 for a connection the
      // engine had already closed.
      const round = () =>
        Promise.all([...Array(8).keys()].map(async (i) => {
          const r = await client.chat.completions.create({
            model: "tiny-random-llama",
            messages: [{ role: "user", content: `count to ${i}` }],
            max_tokens: 8,
            stream: i % 2 === 0,
          });
          if (Symbol.asyncIterator in r) { for await (const _ of r) { /* drain */ } }
        }));
      for (let i = 0; i < 3; i++) await round();
      await new Promise((r) => setTimeout(r, 6_000));
      for (let i = 0; i < 2; i++) await round();
    } finally {
      assertEquals(await app.stop(), 0);
      await Deno.remove(app.dataDir, { recursive: true });
    }
  },
});
