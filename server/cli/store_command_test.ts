/**
 * `llmgw store copy` through the front door: a real llmgw process copies a box's store, with
 * a row in every table and a few thousand usage rows, into a fresh PostgreSQL database.
 */
import { Buffer } from "node:buffer";
import { count } from "drizzle-orm";
import { getTableConfig } from "drizzle-orm/sqlite-core";
import { systemClock } from "../../core/clock.ts";
import { openStore } from "../../db/store.ts";
import * as t from "../../db/schema.ts";
import { assertEquals } from "../../tests/assert.ts";
import { freshDatabase, postgresMissing } from "../../tests/helpers/postgres.ts";
import { skipNote } from "../../tests/helpers/skip.ts";
import { tablesInOrder } from "../ops/copy_store.ts";
import { lockDataDir } from "../ops/data_lock.ts";
import { initDataDir } from "../wiring/init_data_dir.ts";

const main = new URL("../../main.ts", import.meta.url).pathname;

async function llmgw(args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", main, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, text: dec.decode(out.stdout) + dec.decode(out.stderr) };
}

/** A row in every table (init gives the first administrator, admin token and limits). */
async function fillBox(dataDir: string): Promise<void> {
  await initDataDir(dataDir, { clock: systemClock });
  // file-1's bytes, where a box keeps them.
  await Deno.mkdir(`${dataDir}/files`, { recursive: true });
  await Deno.writeTextFile(`${dataDir}/files/file-1`, "0123456789");
  const s = await openStore(`${dataDir}/llmgw.db`);
  const now = 1_796_000_000_000;
  try {
    await s.write(async (tx) => {
      await tx.insert(t.orgs).values({ id: "o1", name: "Acme", createdAt: now });
      await tx.insert(t.teams).values({ id: "t1", orgId: "o1", name: "ML", createdAt: now });
      await tx.insert(t.projects).values({
        id: "p1",
        orgId: "o1",
        teamId: "t1",
        name: "chat",
        createdAt: now,
      });
      const [admin] = await tx.select().from(t.users).limit(1);
      await tx.insert(t.apiKeys).values({
        id: "k1",
        name: "k",
        prefix: "sk-1",
        keyHash: "h1",
        userId: admin!.id,
        projectId: "p1",
        createdAt: now,
      });
      await tx.insert(t.budgetCounters).values({
        scopeKind: "key",
        scopeId: "k1",
        period: "day",
        periodStart: now,
        micros: 5,
        tokens: 7,
      });
      await tx.insert(t.sessions).values({
        id: "s1",
        tokenHash: "sh",
        userId: admin!.id,
        createdAt: now,
        expiresAt: now + 1,
      });
      await tx.insert(t.audit).values({
        id: "a1",
        at: now,
        actorKind: "system",
        actorId: "-",
        actorName: "-",
        action: "x",
        targetKind: "y",
        targetId: "z",
        after: { n: 1 },
      });
      await tx.insert(t.models).values({
        name: "m",
        engine: "sim",
        source: "",
        args: ["--a"],
        createdAt: now,
        updatedAt: now,
        stopped: true,
      });
      await tx.insert(t.nodes).values({
        id: "n1",
        name: "gpu1",
        labels: { zone: "a" },
        credentialHash: "ch",
        cordoned: false,
        draining: true,
        createdAt: now,
      });
      await tx.insert(t.joinCodes).values({
        id: "j1",
        secretHash: "jh",
        labels: {},
        createdAt: now,
        expiresAt: now,
      });
      await tx.insert(t.mirrorVersions).values({
        id: "mv1",
        source: "hf:a/b",
        versionDir: "a/b/c",
        digest: "d",
        pinned: { kind: "hf" } as never,
        status: "complete",
        createdAt: now,
      });
      await tx.insert(t.replicas).values({ id: "r1", nodeId: "n1", model: "m", createdAt: now });
      await tx.insert(t.usageDaily).values({
        day: "2026-11-30",
        keyId: "k1",
        model: "m",
        requests: 2500,
        errors: 0,
        promptTokens: 1,
        cachedTokens: 0,
        completionTokens: 1,
        costMicros: 1,
      });
      await tx.insert(t.clusterSettings).values({
        key: "log_level",
        value: "debug",
        updatedAt: now,
      });
      await tx.insert(t.portalPrefs).values({ userId: admin!.id, locale: "tr", updatedAt: now });
      await tx.insert(t.mcpServers).values({
        name: "jira",
        url: "http://127.0.0.1:9/mcp",
        headers: { authorization: "/etc/llmgw/jira.token" },
        createdAt: now,
        updatedAt: now,
      });
      await tx.insert(t.mcpPersonTokens).values({
        server: "jira",
        userId: admin!.id,
        sealed: "v1.sealed",
        expiresAt: now + 3_600_000,
        updatedAt: now,
      });
      await tx.insert(t.mcpBreakers).values({ server: "jira", failures: 2, openUntil: 0 });
      await tx.insert(t.mcpCallCounts).values({
        caller: "k1",
        server: "jira",
        second: Math.floor(now / 1000),
        count: 3,
      });
      await tx.insert(t.guardPolicies).values({
        name: "pii",
        scopeKind: "global",
        scopeId: "global",
        applyTo: "both",
        rules: [{ kind: "pii", action: "redact" }],
        updatedAt: now,
      });
      await tx.insert(t.storedResponses).values({
        id: "resp_1",
        keyId: "k1",
        createdAt: now,
        expiresAt: now + 1,
        response: { id: "resp_1" },
        input: [],
        context: [],
      });
      await tx.insert(t.files).values({
        id: "file-1",
        keyId: "k1",
        purpose: "batch",
        filename: "in.jsonl",
        bytes: 10,
        createdAt: now,
      });
      await tx.insert(t.batches).values({
        id: "batch_1",
        keyId: "k1",
        endpoint: "/v1/chat/completions",
        inputFileId: "file-1",
        completionWindow: "24h",
        status: "in_progress",
        createdAt: now,
        expiresAt: now + 1,
      });
      await tx.insert(t.batchLines).values({
        batchId: "batch_1",
        customId: "c1",
        line: 1,
        body: { model: "m" },
      });
      await tx.insert(t.rateCounts).values({
        plane: "p1",
        name: "key:k1:rpm",
        windowStart: now,
        count: 3,
        reportedAt: now,
      });
      await tx.insert(t.budgetSlices).values({
        scopeKind: "key",
        scopeId: "k1",
        period: "day",
        periodStart: now,
        unit: "tokens",
        committed: 5,
        lastGrant: 5,
      });
      await tx.insert(t.slotDemand).values({
        plane: "p1",
        replicaId: "r1",
        demand: 2,
        reportedAt: now,
        granted: 2,
        grantedAt: now,
      });
      await tx.insert(t.signInThrottles).values({ name: "ab".repeat(32), count: 1, lastAt: now });
      await tx.insert(t.sessionPlaces).values({
        sessionKey: 0xdeadbeef,
        replicaId: "n1/r1",
        seenAt: now,
      });
      // What a box keeps on disk (below) replaces it: a row here only so every table has one.
      await tx.insert(t.fileChunks).values({
        fileId: "file-1",
        seq: 0,
        bytes: Buffer.from("stale"),
      });
      await tx.insert(t.controlLeases).values({
        name: "leader",
        holderId: "cp1",
        holderUrl: "http://127.0.0.1:8080",
        epoch: 1,
        expiresAt: now,
      });
      await tx.insert(t.changeCounters).values({ topic: "catalog", version: 1, changedAt: now });
      await tx.insert(t.controlPlanes).values({
        id: "cp1",
        url: "http://127.0.0.1:8080",
        clusterUrls: ["https://127.0.0.1:8443"],
        seenAt: now,
      });
      await tx.insert(t.routableReplicas).values({
        id: "n1/r1",
        model: "m",
        baseUrl: "http://127.0.0.1:9",
        state: "ready",
        publishedAt: now,
      });
      await tx.insert(t.replicaUse).values({
        replicaId: "n1/r1",
        controlId: "cp1",
        lastUsedAt: now,
      });
      await tx.insert(t.modelDemand).values({ model: "m", controlId: "cp1", wantedAt: now });
      await tx.insert(t.signInFlows).values({
        stateHash: "sh",
        verifier: "v",
        nonce: "n",
        expiresAt: now,
      });
      await tx.insert(t.kbCollections).values({
        id: "kb1",
        name: "docs",
        orgId: "o1",
        projectId: "p1",
        embeddingModel: "m",
        dims: 2,
        passageWords: 120,
        overlapWords: 24,
        createdAt: now,
      });
      await tx.insert(t.kbDocuments).values({
        id: "kbd1",
        collectionId: "kb1",
        name: "a.md",
        format: "markdown",
        bytes: 5,
        status: "ready",
        passages: 1,
        embedded: 1,
        createdAt: now,
        updatedAt: now,
      });
      await tx.insert(t.kbPassages).values({
        id: "kbp1",
        collectionId: "kb1",
        documentId: "kbd1",
        seq: 0,
        rowKey: 1,
        text: "hello",
        embedding: "[0.6,0.8]",
      });
      await tx.insert(t.userDirectory).values({
        userId: admin!.id,
        source: "ldap",
        externalId: "44cadeec-822a-1041-8629-713bccdb3b37",
        dn: "uid=admin,ou=people,dc=example,dc=test",
        groups: ["llm-admins"],
        suspendedByDirectory: false,
        syncedAt: now,
      });
      await tx.insert(t.scimGroups).values({
        id: "g1",
        displayName: "Research",
        externalId: "e1",
        members: [admin!.id],
        createdAt: now,
        updatedAt: now,
      });
      await tx.insert(t.scimTokens).values({
        id: "st1",
        name: "entra",
        tokenHash: "h",
        createdAt: now,
      });
      for (let i = 0; i < 2500; i += 500) {
        await tx.insert(t.usage).values(
          Array.from({ length: 500 }, (_, j) => ({
            id: `u${String(i + j).padStart(5, "0")}`,
            requestId: `r${i + j}`,
            at: now + i + j,
            keyId: "k1",
            model: "m",
            endpoint: "/chat/completions",
            promptTokens: 3,
            completionTokens: 4,
            status: 200,
            latencyMs: 5,
            stream: (i + j) % 2 === 0,
          })),
        );
      }
    });
  } finally {
    await s.close();
  }
}

Deno.test({
  name: `store copy moves every table of a box into PostgreSQL and checks the counts${
    skipNote(postgresMissing)
  }`,
  ignore: !!postgresMissing,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "llmgw-copy-" });
    try {
      await fillBox(dir);
      const url = await freshDatabase();
      // Only a stopped box is copied: while its control plane holds the data directory, no copy.
      const running = await lockDataDir(dir);
      const refused = await llmgw(["store", "copy", "--to", url, "--data", dir]);
      running.release();
      assertEquals(refused.code === 0, false);
      assertEquals(refused.text.includes("Another llmgw is running"), true, refused.text);

      const first = await llmgw(["store", "copy", "--to", url, "--data", dir]);
      assertEquals(first.code, 0, first.text);
      assertEquals(first.text.includes("every count matches"), true, first.text);

      const from = await openStore(`${dir}/llmgw.db`);
      const to = await openStore(url);
      try {
        for (const table of tablesInOrder()) {
          const name = getTableConfig(table).name;
          const [a] = await from.db.select({ n: count() }).from(table);
          const [b] = await to.db.select({ n: count() }).from(table);
          assertEquals(b?.n, a?.n, name);
          assertEquals((a?.n ?? 0) > 0, true, `the box has no ${name} row: fill it`);
        }
        assertEquals(await to.db.select().from(t.nodes), await from.db.select().from(t.nodes));
        assertEquals(await to.db.select().from(t.models), await from.db.select().from(t.models));
        const [u] = await to.db.select().from(t.usage).orderBy(t.usage.id).limit(1);
        assertEquals(u?.stream, true);
        // The box's file bytes, on its disk, are in the cluster's store now.
        const chunks = await to.db.select().from(t.fileChunks);
        assertEquals(chunks.map((c) => new TextDecoder().decode(c.bytes)), ["0123456789"]);
      } finally {
        await from.close();
        await to.close();
      }

      const again = await llmgw(["store", "copy", "--to", url, "--data", dir]);
      assertEquals(again.code === 0, false);
      assertEquals(again.text.includes("is not empty"), true, again.text);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
