/**
 * Placement agreed across control planes: three apps on one store file, two sim engines that
 * model a prompt cache (2 slots each), and each request of the conversations sent to the next
 * control plane in turn, as a load balancer that takes no notice of conversations would.
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { startPlanes } from "../../tests/helpers/shared_store.ts";
import { addReplica, engineKey } from "../../tests/helpers/routing.ts";
import { startSimEngine } from "../../agent/sim_engine/serve.ts";
import { runMultiturn } from "../../bench/multiturn.ts";
import { sessionPlaces } from "../../db/schema.ts";
import type { RoutingSettings } from "./routing.ts";

async function threePlanesTwoReplicas(routing: Partial<RoutingSettings> = {}) {
  const engines = [
    await startSimEngine({ apiKey: engineKey, slots: 2, promptTokensPerSecond: 200_000 }),
    await startSimEngine({ apiKey: engineKey, slots: 2, promptTokensPerSecond: 200_000 }),
  ];
  const shared = await startPlanes(3, { routing });
  const servers = shared.planes.map((p) => {
    p.deps.replicas.remove("r1");
    engines.forEach((e, i) => addReplica(p, `n${i}/a`, e.url, { apiKey: engineKey, slots: 2 }));
    return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, p.app.fetch);
  });
  return {
    shared,
    urls: servers.map((s) => `http://127.0.0.1:${s.addr.port}/v1`),
    // One key for all: the tenant seeds the session key, as one client's would.
    key: shared.planes[0]!.key,
    async close() {
      for (const s of servers) await s.shutdown();
      await shared.close();
      for (const e of engines) await e.close();
    },
  };
}

const run = { model: "demo", conversations: 4, turns: 6, maxTokens: 16, timeoutMs: 30_000 };
const words = { openingWords: 200, turnWords: 80 };

async function cachedShare(routing: Partial<RoutingSettings> = {}) {
  const t = await threePlanesTwoReplicas(routing);
  try {
    const r = await runMultiturn({ ...run, ...words, url: t.urls, key: t.key });
    assertEquals(r.failed, 0);
    console.log(
      `shared places ${routing.sharedSessions !== false ? "on" : "off"}: cached ${
        (r.cachedShare * 100).toFixed(1)
      } % of ${r.promptTokens}`,
    );
    const rows = await t.shared.planes[0]!.store.db.select().from(sessionPlaces);
    return { share: r.cachedShare, rows };
  } finally {
    await t.close();
  }
}

Deno.test("4 conversations whose turns go round 3 control planes stay on one replica each: as cached as on one control plane", async () => {
  const shared = await cachedShare();
  // The same figure as one control plane reaches (cache_placement_test.ts): 5 of 6 turns cached.
  assert(shared.share >= 0.7, `cached share ${shared.share.toFixed(3)}`);
  assertEquals(shared.rows.length, 4, "one place per conversation, shared by all three");
  const perReplica = Map.groupBy(shared.rows, (r) => r.replicaId);
  assertEquals([...perReplica.values()].map((rs) => rs.length), [2, 2], "two on each replica");
});

Deno.test("without the shared places each control plane places the conversations its own way, and the caches go cold", async () => {
  const alone = await cachedShare({ sharedSessions: false });
  assertEquals(alone.rows.length, 0);
  assert(alone.share < 0.5, `cached share ${alone.share.toFixed(3)}`);
});
