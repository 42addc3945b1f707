/**
 * Placement that fills the engines' prompt caches, on sim engines that model one (a slot keeps
 * the prompt it last ran until another request takes it, and reports what it reused the way
 * llama-server's timings do). The same runs against a real llama-server are in
 * tests/e2e/llama_cache_test.ts.
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { startHarness } from "../../tests/helpers/harness.ts";
import { addSimReplica, usageRows } from "../../tests/helpers/routing.ts";
import { runMultiturn } from "../../bench/multiturn.ts";
import { prefixBlocks, tenantSeed } from "./request_keys.ts";
import type { RoutingSettings } from "./routing.ts";

async function twoReplicasOfTwoSlots(routing: Partial<RoutingSettings> = {}) {
  const h = await startHarness({ routing });
  h.deps.replicas.remove("r1");
  const engines = [
    await addSimReplica(h, "a", { slots: 2, promptTokensPerSecond: 200_000 }),
    await addSimReplica(h, "b", { slots: 2, promptTokensPerSecond: 200_000 }),
  ];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, h.app.fetch);
  return {
    h,
    url: `http://127.0.0.1:${server.addr.port}/v1`,
    async close() {
      await server.shutdown();
      for (const e of engines) await e.close();
      await h.close();
    },
  };
}

const conversation = { openingWords: 200, turnWords: 80, maxTokens: 16, timeoutMs: 30_000 };

Deno.test("4 conversations over 2 replicas × 2 slots: each keeps its slot, most of every prompt is cached, and usage rows say so", async () => {
  const t = await twoReplicasOfTwoSlots();
  try {
    const base = { url: t.url, key: t.h.key, model: "demo", conversations: 4, turns: 6 };
    const placed = await runMultiturn({ ...base, ...conversation });
    assertEquals(placed.failed, 0);
    assert(placed.cachedShare >= 0.7, `cached share ${placed.cachedShare.toFixed(3)}`);
    const rows = await usageRows(t.h);
    const cached = rows.reduce((n, r) => n + (r.cachedTokens ?? 0), 0);
    assertEquals(cached, placed.cachedTokens, "usage rows carry the cached tokens");
  } finally {
    await t.close();
  }
});

Deno.test("8 conversations over the same 4 slots stay warm when slots are saved to disk and restored", async () => {
  const base = { model: "demo", conversations: 8, turns: 6, ...conversation };
  // The slot keeper is for llama.cpp; the sim engine speaks the same /slots actions.
  const kept = await twoReplicasOfTwoSlots({ slotKeeperEngines: ["sim"] });
  let withKeeper;
  try {
    withKeeper = await runMultiturn({ ...base, url: kept.url, key: kept.h.key });
  } finally {
    await kept.close();
  }
  const plain = await twoReplicasOfTwoSlots();
  let without;
  try {
    without = await runMultiturn({ ...base, url: plain.url, key: plain.h.key });
  } finally {
    await plain.close();
  }
  assertEquals(withKeeper.failed + without.failed, 0);
  assert(withKeeper.cachedShare >= 0.4, `with save/restore ${withKeeper.cachedShare.toFixed(3)}`);
  // Four conversations taking turns on a replica's two slots evict each other every turn.
  assert(without.cachedShare < 0.1, `without ${without.cachedShare.toFixed(3)}`);
});

Deno.test("one tenant's long prefix never chooses the replica for another tenant's request", async () => {
  const t = await twoReplicasOfTwoSlots();
  try {
    const { h } = t;
    const body = {
      model: "demo",
      max_tokens: 2,
      messages: [
        { role: "system", content: "You are a careful assistant. ".repeat(60) },
        { role: "user", content: "first" },
      ],
    };
    const ask = async (key: string) => {
      const res = await h.app.request("/v1/chat/completions", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      assertEquals(res.status, 200);
      await res.body?.cancel();
    };
    await ask(h.key);
    const seenBy = (await usageRows(h))[0]!.replicaId;
    const other = await h.deps.keys.create({ name: "other tenant" });
    await ask(other.key);
    const { prefixIndex, settings } = h.deps.routing;
    const mine = (await h.deps.keys.list()).find((k) => k.name === "test")!;
    const lookup = (k: { id: string; projectId: string | null }) =>
      prefixIndex.lookup(prefixBlocks(body, settings.prefix, tenantSeed(k)))?.replicaId;
    assertEquals(lookup(mine), seenBy, "the tenant that sent it follows its own prefix");
    const theirs = (await usageRows(h))[1]!.replicaId;
    assertEquals(lookup(other), theirs, "the other tenant's entry is its own");
    // Had the first tenant's entry been found, it would name the first replica whatever the
    // second request did; with two replicas, check the other way round too.
    assertEquals(
      prefixIndex.lookup(
        prefixBlocks(body, settings.prefix, tenantSeed({ id: "x", projectId: "p" })),
      ),
      undefined,
      "a tenant that sent nothing finds nothing",
    );
  } finally {
    await t.close();
  }
});
