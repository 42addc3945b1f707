import { assertEquals, assertRejects } from "../tests/assert.ts";
import { freshDatabase, pgCluster, postgresMissing } from "../tests/helpers/postgres.ts";
import { skipNote } from "../tests/helpers/skip.ts";
import { storeTest } from "../tests/helpers/stores.ts";
import { openStore, StoreError } from "./store.ts";
import { models } from "./schema.ts";
import { sql } from "drizzle-orm";
import postgres from "postgres";

const model = (name: string, now = Date.now()) => ({
  name,
  engine: "sim",
  source: "",
  args: [],
  createdAt: now,
  updatedAt: now,
});

storeTest("openStore applies migrations and writes go through one queue", async (store) => {
  await Promise.all(
    ["a", "b", "c"].map((name) => store.write((tx) => tx.insert(models).values(model(name)))),
  );
  const rows = await store.db.select().from(models);
  assertEquals(rows.map((r) => r.name).sort(), ["a", "b", "c"]);
});

storeTest("a failed write rolls back and later writes still run", async (store) => {
  await assertRejects(() =>
    store.write(async (tx) => {
      await tx.insert(models).values(model("x"));
      throw new Error("boom");
    })
  );
  await store.write((tx) => tx.insert(models).values(model("x")));
  assertEquals((await store.db.select().from(models)).length, 1);
});

storeTest("run and all speak the store's own dialect", async (store) => {
  await store.write((tx) => tx.insert(models).values([model("a"), model("b")]));
  const changed = await store.write((tx) =>
    store.run({
      sqlite: sql`UPDATE models SET description = 'lite' WHERE name = 'a'`,
      postgres: sql`UPDATE models SET description = 'pg' WHERE name = 'a'`,
    }, tx)
  );
  assertEquals(changed, 1);
  const rows = await store.all<{ d: string }>({
    sqlite: sql`SELECT description AS d FROM models WHERE name = 'a'`,
    postgres: sql`SELECT description AS d FROM models WHERE name = 'a'`,
  });
  assertEquals(rows, [{ d: store.dialect === "sqlite" ? "lite" : "pg" }]);
});

Deno.test("the SQLite store runs in WAL mode", async () => {
  const dir = await Deno.makeTempDir();
  const store = await openStore(`${dir}/llmgw.db`);
  try {
    assertEquals(store.dialect, "sqlite");
    const mode = await store.db.get<{ journal_mode: string }>(sql`PRAGMA journal_mode`);
    assertEquals(mode.journal_mode, "wal");
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a file that is not a database gives a clear StoreError", async () => {
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/llmgw.db`, "this is not sqlite ".repeat(400));
  try {
    const err = await assertRejects(() => openStore(`${dir}/llmgw.db`), StoreError);
    assertEquals(/damaged or is not an llmgw database/.test(err.message), true);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

const pg = { ignore: !!postgresMissing, note: skipNote(postgresMissing) };

Deno.test({
  name: `three control planes opening one PostgreSQL store at once migrate it once${pg.note}`,
  ignore: pg.ignore,
  fn: async () => {
    const url = await freshDatabase();
    const stores = await Promise.all([openStore(url), openStore(url), openStore(url)]);
    try {
      const applied = await stores[0]!.all<{ n: number }>({
        sqlite: sql`SELECT 0 AS n`,
        postgres: sql`SELECT count(*) AS n FROM drizzle.__drizzle_migrations`,
      });
      const journal = JSON.parse(
        await Deno.readTextFile(new URL("./migrations_pg/meta/_journal.json", import.meta.url)),
      ) as { entries: unknown[] };
      assertEquals(applied, [{ n: journal.entries.length }]);
      await stores[1]!.write((tx) => tx.insert(models).values(model("shared")));
      assertEquals((await stores[2]!.db.select().from(models)).map((m) => m.name), ["shared"]);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  },
});

Deno.test({
  name: `a URL with several hosts skips one that is down and uses the next${pg.note}`,
  ignore: pg.ignore,
  fn: async () => {
    const url = new URL(await freshDatabase());
    const dead = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const deadPort = (dead.addr as Deno.NetAddr).port;
    dead.close();
    const two = `postgres://postgres@127.0.0.1:${deadPort},127.0.0.1:${url.port}${url.pathname}`;
    const store = await openStore(two);
    try {
      assertEquals(store.path, two);
      await store.write((tx) => tx.insert(models).values(model("via-second")));
      assertEquals((await store.db.select().from(models)).length, 1);
    } finally {
      await store.close();
    }
  },
});

Deno.test({
  name: `a statement that runs too long is stopped by statement_timeout${pg.note}`,
  ignore: pg.ignore,
  fn: async () => {
    const url = `${await freshDatabase()}?statement_timeout=200`;
    const store = await openStore(url);
    try {
      const started = performance.now();
      const err = await assertRejects(() =>
        store.all({ sqlite: sql`SELECT 1`, postgres: sql`SELECT pg_sleep(5)` })
      );
      const why = String((err as Error).cause);
      assertEquals(/statement timeout/i.test(why), true, why);
      assertEquals(performance.now() - started < 3_000, true);
    } finally {
      await store.close();
    }
  },
});

Deno.test({
  name: `an unreachable PostgreSQL gives a clear StoreError without the password${pg.note}`,
  ignore: pg.ignore,
  fn: async () => {
    const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (l.addr as Deno.NetAddr).port;
    l.close();
    const err = await assertRejects(
      () => openStore(`postgres://llmgw:hunter2@127.0.0.1:${port}/llmgw`),
      StoreError,
    );
    assertEquals(/Cannot reach the PostgreSQL store/.test(err.message), true, err.message);
    assertEquals(err.message.includes("hunter2"), false, err.message);
  },
});

Deno.test({
  name: `the pool comes back after PostgreSQL restarts${pg.note}`,
  ignore: pg.ignore,
  fn: async () => {
    const c = await pgCluster();
    const url = await freshDatabase();
    const store = await openStore(url);
    try {
      await store.write((tx) => tx.insert(models).values(model("before")));
      await c.stop();
      await assertRejects(() => store.write((tx) => tx.insert(models).values(model("during"))));
      await c.start();
      await store.write((tx) => tx.insert(models).values(model("after")));
      assertEquals((await store.db.select().from(models)).map((m) => m.name).sort(), [
        "after",
        "before",
      ]);
    } finally {
      await store.close();
    }
    // The restarted cluster still serves other tests' new databases.
    const probe = postgres(c.url("postgres"), { max: 1 });
    await probe`SELECT 1`;
    await probe.end();
  },
});
