/**
 * An engine that dies in the middle of a streamed answer, behind a real `llmgw up`, seen by the
 * official OpenAI SDK: the stream ends with an API error naming the model (not a bare cut
 * connection), the usage row says 502, and the supervisor's restart lets the next request in.
 */
import OpenAI, { APIError } from "openai";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { startAppliance } from "../helpers/appliance.ts";
import { alive, recordedEnginePids } from "../helpers/engine_pids.ts";
import { openStore } from "../../db/store.ts";
import { usage } from "../../db/schema.ts";

Deno.test({
  name:
    "an engine killed mid-stream: the SDK raises the engine's failure, usage says 502, the next request is served",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const app = await startAppliance({ args: ["--engines-sim-tokens-per-second", "10"] });
    const client = new OpenAI({ baseURL: `${app.url}/v1`, apiKey: app.key, maxRetries: 0 });
    try {
      const stream = await client.chat.completions.create({
        model: "demo",
        messages: [{ role: "user", content: "tell me something long" }],
        max_tokens: 200,
        stream: true,
      });
      let text = "";
      let failure: unknown;
      try {
        for await (const chunk of stream) {
          text += chunk.choices[0]?.delta.content ?? "";
          if (text.length > 0 && failure === undefined) {
            failure = null;
            const [engine] = await recordedEnginePids(app.dataDir);
            assert(engine && alive(engine), "the engine runs");
            Deno.kill(engine, "SIGKILL");
          }
        }
      } catch (e) {
        failure = e;
      }
      assert(text.length > 0, "some of the answer arrived first");
      assert(failure instanceof APIError, `an API error, not ${String(failure)}`);
      assertMatch(failure.message, /engine serving 'demo' failed: it stopped in the middle/);

      // The supervisor restarts the engine; the model answers again.
      let answered = false;
      for (let i = 0; i < 100 && !answered; i++) {
        answered = await client.chat.completions.create({
          model: "demo",
          messages: [{ role: "user", content: "hi" }],
          max_tokens: 2,
        }).then(() => true, () => false);
        if (!answered) await new Promise((r) => setTimeout(r, 100));
      }
      assert(answered, "the next request is served once the engine is back");
    } finally {
      assertEquals(await app.stop(), 0);
    }
    const store = await openStore(`${app.dataDir}/llmgw.db`);
    try {
      const rows = await store.db.select().from(usage);
      const broken = rows.find((r) => r.stream);
      assertEquals(broken?.status, 502);
      assert((broken?.completionTokens ?? 0) > 0, "the tokens sent before the failure count");
    } finally {
      store.close();
      await Deno.remove(app.dataDir, { recursive: true });
    }
  },
});
