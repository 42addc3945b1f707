/**
 * Two control planes on one PostgreSQL store: a key made on one is honoured by the other, and
 * the usage rows of both land in the one store, written in batches as on one box.
 */
import { usage } from "../../db/schema.ts";
import { openStore } from "../../db/store.ts";
import { assertEquals } from "../assert.ts";
import { startTestControlPlane } from "../helpers/control_plane.ts";
import { eventually } from "../helpers/llmgw_process.ts";
import { freshDatabase, postgresMissing } from "../helpers/postgres.ts";
import { skipNote } from "../helpers/skip.ts";

const chat = { model: "demo", max_tokens: 4, messages: [{ role: "user", content: "hi" }] };

Deno.test({
  name: `usage rows from two control planes on one PostgreSQL land in the one store${
    skipNote(postgresMissing)
  }`,
  ignore: !!postgresMissing,
  fn: async () => {
    const url = await freshDatabase();
    const a = await startTestControlPlane({ storeUrl: url });
    const b = await startTestControlPlane({ flags: { "store-url": url } });
    const reader = await openStore(url);
    try {
      const auth = { authorization: `Bearer ${a.key}` };
      for (let i = 0; i < 3; i++) {
        for (const cp of [a, b]) {
          const r = await cp.chat(chat, auth);
          assertEquals(r.status, 200, await r.text());
        }
      }
      const rows = await eventually("six usage rows", async () => {
        const got = await reader.db.select().from(usage);
        return got.length === 6 ? got : undefined;
      });
      assertEquals(rows.every((r) => r.status === 200 && r.model === "demo"), true);
      assertEquals(new Set(rows.map((r) => r.keyId)).size, 1, "all with a's key");
      assertEquals(new Set(rows.map((r) => r.requestId)).size, 6);
    } finally {
      await reader.close();
      await b.close();
      await a.close();
    }
  },
});
