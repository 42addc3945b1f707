import { assertEquals, assertRejects } from "../tests/assert.ts";
import { openStore, StoreError } from "./store.ts";
import { models } from "./schema.ts";
import { sql } from "drizzle-orm";

Deno.test("openStore applies migrations and writes go through one queue", async () => {
  const dir = await Deno.makeTempDir();
  const store = await openStore(`${dir}/llmgw.db`);
  try {
    const now = Date.now();
    await Promise.all(["a", "b", "c"].map((name) =>
      store.write((tx) =>
        tx.insert(models).values({
          name,
          engine: "sim",
          source: "",
          args: [],
          createdAt: now,
          updatedAt: now,
        })
      )
    ));
    const rows = await store.db.select().from(models);
    assertEquals(rows.map((r) => r.name).sort(), ["a", "b", "c"]);
    const mode = await store.db.get<{ journal_mode: string }>(sql`PRAGMA journal_mode`);
    assertEquals(mode.journal_mode, "wal");
  } finally {
    store.close();
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

Deno.test("a failed write rolls back and later writes still run", async () => {
  const store = await openStore(":memory:");
  try {
    const now = Date.now();
    const row = { name: "x", engine: "sim", source: "", args: [], createdAt: now, updatedAt: now };
    await assertRejects(() =>
      store.write(async (tx) => {
        await tx.insert(models).values(row);
        throw new Error("boom");
      })
    );
    await store.write((tx) => tx.insert(models).values(row));
    assertEquals((await store.db.select().from(models)).length, 1);
  } finally {
    store.close();
  }
});
