/**
 * The knowledge bases' PostgreSQL half. pgvector is not packaged for this Debian's PostgreSQL, so
 * the SQL is run on PGlite (PostgreSQL compiled to WASM, with pgvector as its extension) through
 * the same Store seam: PostgreSQL's migrations, the store's writes, vector and keyword search. A
 * real PostgreSQL server without pgvector is then checked to refuse by the extension's name.
 */
import { FakeClock } from "../../core/clock.ts";
import { silentLogger } from "../../core/log.ts";
import { type Db, type DialectSql, type Store, type Tx, writeQueue } from "../../db/store.ts";
import { orgs, projects, teams } from "../../db/schema.ts";
import { assert, assertEquals } from "../../tests/assert.ts";
import { postgresMissing } from "../../tests/helpers/postgres.ts";
import { skipNote } from "../../tests/helpers/skip.ts";
import { addDocument, makeCollection, search, startKb } from "../../tests/helpers/kb.ts";
import type { Embedder } from "./embedder.ts";
import { KbImporter } from "./importer.ts";
import { KbStore } from "./kb_store.ts";
import { searchCollections } from "./search.ts";
import type { ApiKeyInfo } from "../keys/keys.ts";

// Names, not literals: PGlite is a development dependency a checkout may not have installed yet
// (and Drizzle's PGlite driver imports it).
const pglitePackage = "@electric-sql/pglite";
const vectorPackage = "@electric-sql/pglite/vector";
const driverPackage = "drizzle-orm/pglite";
const migratorPackage = "drizzle-orm/pglite/migrator";

interface PGliteModule {
  PGlite: new (opts: { extensions: Record<string, unknown> }) => {
    close(): Promise<void>;
  };
}

const pglite = await import(pglitePackage).then((m) => m as PGliteModule, () => undefined);
const pgliteMissing = pglite
  ? undefined
  : "npm package @electric-sql/pglite not installed (npm install)";

/** A Store over PGlite: the PostgreSQL dialect's SQL, Drizzle's PGlite driver under it. */
async function pgliteStore(): Promise<Store> {
  const { vector } = await import(vectorPackage);
  const { drizzle } = await import(driverPackage);
  const { migrate } = await import(migratorPackage);
  const client = new pglite!.PGlite({ extensions: { vector } });
  const pgDb = drizzle(client);
  await migrate(pgDb, {
    migrationsFolder: new URL("../../db/migrations_pg", import.meta.url).pathname,
  });
  const db = pgDb as unknown as Db;
  const queue = writeQueue();
  const exec = (tx: Tx | undefined, q: DialectSql) =>
    ((tx ?? db) as unknown as {
      execute(q: unknown): Promise<{ rows: unknown[]; affectedRows?: number }>;
    })
      .execute(q.postgres);
  return {
    dialect: "postgres",
    path: "pglite",
    db,
    write: <T>(fn: (tx: Tx) => Promise<T>) => queue(() => db.transaction(fn)),
    run: async (q, tx) => (await exec(tx, q)).affectedRows ?? 0,
    all: async <T>(q: DialectSql, tx?: Tx) => (await exec(tx, q)).rows as T[],
    close: () => client.close(),
  };
}

/** Lower-cased words hashed into 64 places: texts sharing words are near. */
const wordsEmbedder: Embedder = {
  embed(_model, texts) {
    return Promise.resolve(texts.map((t) => {
      const v = new Array(64).fill(0);
      for (const w of t.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
        let h = 0;
        for (const ch of w) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
        v[h % 64] += 1;
      }
      return v;
    }));
  },
};

const caller: ApiKeyInfo = {
  id: "k",
  name: "k",
  prefix: "",
  userId: null,
  projectId: null,
  createdAt: 0,
  expiresAt: null,
  revokedAt: null,
  lastUsedAt: null,
};

Deno.test({
  name: `kb on PostgreSQL (PGlite with pgvector): migrations, import, vector and keyword search${
    skipNote(pgliteMissing)
  }`,
  ignore: !!pgliteMissing,
  fn: async () => {
    const store = await pgliteStore();
    try {
      await store.write(async (tx) => {
        await tx.insert(orgs).values({ id: "o", name: "o", createdAt: 0 });
        await tx.insert(teams).values({ id: "t", orgId: "o", name: "t", createdAt: 0 });
        await tx.insert(projects).values({
          id: "p",
          orgId: "o",
          teamId: "t",
          name: "p",
          createdAt: 0,
        });
      });
      const kb = new KbStore(store, new FakeClock());
      const importer = new KbImporter({ kb, embedder: wordsEmbedder, logger: silentLogger });
      const col = await kb.createCollection({
        name: "c",
        orgId: "o",
        projectId: "p",
        embeddingModel: "m",
        passageWords: 20,
        overlapWords: 5,
      });
      const bytes = (s: string) => new TextEncoder().encode(s);
      await importer.add(col, {
        name: "a.md",
        bytes: bytes(
          "# Tea\n\nGreen tea steeps for two minutes.\n\n# Rice\n\nRinse the rice before boiling it.",
        ),
      }, caller);
      await importer.add(col, {
        name: "b.txt",
        bytes: bytes("Parking permits are renewed each January."),
      }, caller);
      await importer.idle();
      assertEquals((await kb.status(col.id)).embedded, 3);
      const deps = { store, kb, embedder: wordsEmbedder };
      for (const mode of ["vector", "keyword", "hybrid"] as const) {
        const [top] = await searchCollections(deps, [col], "how long does green tea steep", {
          limit: 3,
          mode,
          caller,
        });
        assertEquals(top?.heading, "Tea", mode);
        assertEquals(top?.document, "a.md", mode);
      }
      // Replacing a document replaces its passages for the keyword index too.
      await importer.add(
        col,
        { name: "b.txt", bytes: bytes("Bicycle racks are behind the gym.") },
        caller,
      );
      await importer.idle();
      const parking = await searchCollections(deps, [col], "parking permits", {
        limit: 3,
        mode: "keyword",
        caller,
      });
      assertEquals(parking, []);
    } finally {
      await store.close();
    }
  },
});

Deno.test({
  name: `kb on a real PostgreSQL without pgvector: search is refused naming the extension${
    skipNote(postgresMissing)
  }`,
  ignore: !!postgresMissing,
  fn: async () => {
    const { h, tenant, close } = await startKb({ dialect: "postgres" });
    try {
      const col = await makeCollection(h, { name: "pg", project_id: tenant.project.id });
      await addDocument(h, col.id, "a.txt", "some words to find");
      const keyword = await search(h, tenant.member.key, col.id, {
        query: "words",
        mode: "keyword",
      });
      assertEquals(keyword.status, 200, "the keyword half needs no extension");
      assertEquals((await keyword.json()).data.length, 1);
      const res = await search(h, tenant.member.key, col.id, { query: "words" });
      const body = await res.json();
      assertEquals(res.status, 503, JSON.stringify(body));
      assertEquals(body.error.code, "kb_unavailable");
      assert(String(body.error.message).includes("pgvector"), body.error.message);
    } finally {
      await close();
    }
  },
});
