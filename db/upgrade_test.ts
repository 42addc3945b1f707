/**
 * A store made by the release before `replicas` (a replica in `shards` and `node_shards`) opens
 * with today's migrate path and keeps every replica, merged into one row each.
 */
import { createClient } from "@libsql/client";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import { assertEquals, assertRejects } from "../tests/assert.ts";
import { replicas } from "./schema.ts";
import { openStore } from "./store.ts";

const migrations = new URL("./migrations/", import.meta.url).pathname;
const firstNew = "0002_replicas";

/** The migration set as the previous release shipped it: the journal cut before `firstNew`. */
async function previousMigrations(dir: string): Promise<string> {
  const out = `${dir}/migrations`;
  await Deno.mkdir(`${out}/meta`, { recursive: true });
  const journal = JSON.parse(await Deno.readTextFile(`${migrations}meta/_journal.json`)) as {
    entries: { tag: string }[];
  };
  const cut = journal.entries.findIndex((e) => e.tag === firstNew);
  if (cut < 0) throw new Error(`no migration ${firstNew} in the journal`);
  journal.entries = journal.entries.slice(0, cut);
  for (const e of journal.entries) {
    await Deno.copyFile(`${migrations}${e.tag}.sql`, `${out}/${e.tag}.sql`);
  }
  await Deno.writeTextFile(`${out}/meta/_journal.json`, JSON.stringify(journal));
  return out;
}

const node = (id: string, name: string) =>
  sql`INSERT INTO nodes (id, name, labels, credential_hash, cordoned, draining, created_at,
    last_heard_at, version, last_report)
    VALUES (${id}, ${name}, '{"zone":"a"}', ${`hash-${id}`}, 0, 0, 1000, 2000, '1.0.0', NULL)`;

const placed = (
  r: { id: string; node: string; model: string; state: string; readyAt: number | null },
  reason: string | null,
) =>
  sql`INSERT INTO shards (id, model, node_id, profile, gpus, per_card_bytes, ram_bytes, cores,
    spec_hash, state, created_at, state_since, ready_at, reason)
    VALUES (${r.id}, ${r.model}, ${r.node}, 1, '[0,1]', 8000000000, 2000000000, 4,
    ${`spec-${r.id}`}, ${r.state}, 3000, 3500, ${r.readyAt}, ${reason})`;

const desired = (
  r: { id: string; node: string; model: string },
  modelPath: string | null,
  launch: string | null,
) =>
  sql`INSERT INTO node_shards (node_id, shard_id, model, engine, model_path, args, created_at,
    launch)
    VALUES (${r.node}, ${r.id}, ${r.model}, 'llamacpp', ${modelPath}, '["--flash-attn"]', 3100,
    ${launch})`;

const launch = { contextLength: 8192, parallel: 2, mode: "generate", gpus: [0, 1] };

/** What each replica must read as after the upgrade. */
const placement = (id: string, state: string, readyAt: number | null, reason: string | null) => ({
  profile: 1,
  gpus: [0, 1],
  perCardBytes: 8_000_000_000,
  ramBytes: 2_000_000_000,
  cores: 4,
  specHash: `spec-${id}`,
  state,
  stateSince: 3500,
  readyAt,
  reason,
});
const noPlacement = {
  profile: null,
  gpus: null,
  perCardBytes: null,
  ramBytes: null,
  cores: null,
  specHash: null,
  state: null,
  stateSince: null,
  readyAt: null,
  reason: null,
};
const started = (modelPath: string | null, l: unknown) => ({
  engine: "llamacpp",
  modelPath,
  args: ["--flash-attn"],
  launch: l,
  desiredAt: 3100,
});
const notStarted = { engine: null, modelPath: null, args: null, launch: null, desiredAt: null };

Deno.test("upgrade: a store with shards and node_shards keeps every replica in replicas", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/llmgw.db`;
  try {
    const old = createClient({ url: `file:${path}` });
    const oldDb = drizzle(old);
    await migrate(oldDb, { migrationsFolder: await previousMigrations(dir) });
    await oldDb.run(node("n1", "gpu-a"));
    await oldDb.run(node("n2", "gpu-b"));
    await oldDb.run(node("n3", "idle"));
    const both = { id: "s-both", node: "n1", model: "qwen", state: "ready", readyAt: 4000 };
    const failed = { id: "s-failed", node: "n1", model: "qwen", state: "failed", readyAt: null };
    const byHand = { id: "by-hand", node: "n2", model: "llama" };
    const starting = {
      id: "s-start",
      node: "n2",
      model: "llama",
      state: "starting",
      readyAt: null,
    };
    const orphan = { id: "s-orphan", node: "removed", model: "qwen", state: "ready", readyAt: 1 };
    await oldDb.run(placed(both, null));
    await oldDb.run(desired(both, "/models/qwen.gguf", JSON.stringify(launch)));
    await oldDb.run(placed(failed, "the engine exited with code 1"));
    await oldDb.run(desired(byHand, null, null));
    await oldDb.run(placed(starting, null));
    await oldDb.run(desired(starting, "/models/llama.gguf", JSON.stringify(launch)));
    await oldDb.run(placed(orphan, null));
    old.close();

    const store = await openStore(path);
    try {
      const rows = await store.db.select().from(replicas).orderBy(replicas.id);
      assertEquals(rows, [
        {
          id: "by-hand",
          nodeId: "n2",
          model: "llama",
          createdAt: 3100,
          ...noPlacement,
          ...started(null, null),
        },
        {
          id: "s-both",
          nodeId: "n1",
          model: "qwen",
          createdAt: 3000,
          ...placement("s-both", "ready", 4000, null),
          ...started("/models/qwen.gguf", launch),
        },
        {
          id: "s-failed",
          nodeId: "n1",
          model: "qwen",
          createdAt: 3000,
          ...placement("s-failed", "failed", null, "the engine exited with code 1"),
          ...notStarted,
        },
        {
          id: "s-start",
          nodeId: "n2",
          model: "llama",
          createdAt: 3000,
          ...placement("s-start", "starting", null, null),
          ...started("/models/llama.gguf", launch),
        },
      ]);
      const tables = await store.db.all<{ name: string }>(
        sql`SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('shards', 'node_shards')`,
      );
      assertEquals(tables, []);

      // The node is a foreign key, in force: checked, refused when unknown, removed with it.
      assertEquals(await store.db.all(sql`PRAGMA foreign_key_check`), []);
      await assertRejects(() =>
        store.write((tx) =>
          tx.insert(replicas).values({ id: "x", nodeId: "nobody", model: "qwen", createdAt: 1 })
        )
      );
      await store.write((tx) => tx.run(sql`DELETE FROM nodes WHERE id = 'n1'`));
      const left = await store.db.select({ id: replicas.id }).from(replicas).orderBy(replicas.id);
      assertEquals(left.map((r) => r.id), ["by-hand", "s-start"]);
    } finally {
      store.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
