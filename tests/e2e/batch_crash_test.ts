/**
 * A batch survives its control plane being killed: a real `llmgw up`, SIGKILLed in the middle
 * of a batch, started again on the same data directory, finishes it. Every line is once in the
 * output, and each has exactly one usage row (its charge), the one of the answer kept: a line's
 * row is written with its answer, so neither a line answered just before the kill (its row not
 * yet flushed by the recorder) nor one in flight at the kill (sent again) is charged other than
 * once. The recorder's flush interval is long here (3 s), so a row left to it would be lost.
 */
import OpenAI, { toFile } from "openai";
import { assert, assertEquals } from "../assert.ts";
import { type Appliance, startAppliance } from "../helpers/appliance.ts";
import { openStore } from "../../db/store.ts";
import { usage } from "../../db/schema.ts";

const lines = 60;
const args = ["--usage-flush-interval-ms", "3000", "--engines-sim-tokens-per-second", "300"];

function client(app: Appliance): OpenAI {
  return new OpenAI({ baseURL: `${app.url}/v1`, apiKey: app.key, maxRetries: 0 });
}

async function until(
  openai: OpenAI,
  id: string,
  done: (b: OpenAI.Batch) => boolean,
  timeoutMs = 120_000,
): Promise<OpenAI.Batch> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const b = await openai.batches.retrieve(id);
    if (done(b)) return b;
    await new Promise((r) => setTimeout(r, 30));
  }
  throw new Error(`batch ${id} did not get there`);
}

Deno.test({
  name:
    "SIGKILL in the middle of a batch: after a restart every line is once in the output, charged once",
  sanitizeResources: false,
  async fn() {
    const first = await startAppliance({ args });
    const dataDir = first.dataDir;
    let second: Appliance | undefined;
    try {
      const openai = client(first);
      const input = Array.from({ length: lines }, (_, i) =>
        JSON.stringify({
          custom_id: `line-${i}`,
          method: "POST",
          url: "/v1/chat/completions",
          body: {
            model: "demo",
            messages: [{ role: "user", content: `Count to ${i}` }],
            max_tokens: 30,
          },
        })).join("\n");
      const file = await openai.files.create({
        file: await toFile(new TextEncoder().encode(input), "in.jsonl"),
        purpose: "batch",
      });
      const batch = await openai.batches.create({
        input_file_id: file.id,
        endpoint: "/v1/chat/completions",
        completion_window: "24h",
      });
      const before = await until(openai, batch.id, (b) => (b.request_counts?.completed ?? 0) >= 12);
      assert(before.status === "in_progress", "killed in the middle, not after the end");
      await first.kill("SIGKILL");

      second = await startAppliance({ dataDir, args });
      const again = client(second);
      const done = await until(again, batch.id, (b) => b.status === "completed");
      assertEquals(done.request_counts, { total: lines, completed: lines, failed: 0 });
      const text = await (await again.files.content(done.output_file_id!)).text();
      const out = text.trim().split("\n").map((l) => JSON.parse(l));
      assertEquals(out.length, lines, "each line once");
      assertEquals(new Set(out.map((l) => l.custom_id)).size, lines);
      assert(out.every((l) => l.response.status_code === 200));
      assertEquals(await second.stop(), 0);

      const store = await openStore(`${dataDir}/llmgw.db`);
      try {
        const rows = (await store.db.select().from(usage)).filter((u) => u.profile === "batch");
        assertEquals(rows.length, lines, "one usage row a line: charged once, none lost");
        assertEquals(
          new Set(rows.map((u) => u.requestId)),
          new Set(out.map((l) => l.response.request_id)),
          "each row is the kept answer's",
        );
      } finally {
        store.close();
      }
    } finally {
      await first.kill("SIGKILL");
      await second?.kill("SIGKILL");
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
