/**
 * A control plane on PostgreSQL keeps answering /v1 while the store is down: a request needs
 * only the cached key, the limits and the catalog, all in memory. The usage rows of what it
 * answered meanwhile wait in the recorder and land once PostgreSQL is back.
 */
import { count } from "drizzle-orm";
import { usage } from "../../db/schema.ts";
import { openStore } from "../../db/store.ts";
import { assert, assertEquals } from "../assert.ts";
import { startTestControlPlane } from "../helpers/control_plane.ts";
import { eventually } from "../helpers/llmgw_process.ts";
import { freshDatabase, pgCluster, postgresMissing } from "../helpers/postgres.ts";
import { skipNote } from "../helpers/skip.ts";

const chat = { model: "demo", max_tokens: 4, messages: [{ role: "user", content: "hi" }] };

Deno.test({
  name: `with PostgreSQL stopped, /v1 answers from caches; usage rows land once it is back${
    skipNote(postgresMissing)
  }`,
  ignore: !!postgresMissing,
  fn: async () => {
    const pg = await pgCluster();
    const url = await freshDatabase();
    const t = await startTestControlPlane({
      storeUrl: url,
      flags: { "auth-key-cache-ms": "600000" },
    });
    const reader = await openStore(url);
    const rows = async () => (await reader.db.select({ n: count() }).from(usage))[0]?.n ?? 0;
    let stopped = false;
    try {
      assertEquals(t.cp.deps.store.dialect, "postgres");
      const first = await t.chat(chat);
      assertEquals(first.status, 200, await first.text());
      await eventually("the first usage row", async () => (await rows()) === 1 || undefined);

      await pg.stop();
      stopped = true;
      const started = performance.now();
      for (let i = 0; i < 5; i++) {
        const r = await t.chat(chat);
        assertEquals(r.status, 200, await r.text());
      }
      const ms = performance.now() - started;
      // Far below the store's connect timeout (5 s): no request waited on the store.
      assert(ms < 2_000, `5 requests with the store down took ${ms.toFixed(0)} ms`);
      console.log(`5 requests with PostgreSQL stopped: ${ms.toFixed(0)} ms`);

      await pg.start();
      stopped = false;
      await eventually(
        "the 5 rows written once it is back",
        async () => (await rows()) === 6 || undefined,
        30_000,
      );
    } finally {
      if (stopped) await pg.start();
      await reader.close();
      await t.close();
    }
  },
});
