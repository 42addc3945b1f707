/**
 * Placement agreed across control planes: three apps on one store file, two sim engines that
 * model a prompt cache (2 slots each), and each request of the conversations sent to the next
 * control plane in turn, as a load balancer that takes no notice of conversations would.
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { startPlanes } from "../../tests/helpers/shared_store.ts";
import { addReplica, engineKey } from "../../tests/helpers/routing.ts";
import { startSimEngine } from "../../tests/helpers/sim_engine.ts";
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

/**
 * The cached share of `trials` runs on one set of control planes, each run with conversations of
 * its own (so hashes of its own), the clock moved past the sessions' TTL between runs.
 */
async function cachedShares(trials: number, routing: Partial<RoutingSettings> = {}) {
  const t = await threePlanesTwoReplicas(routing);
  try {
    const shares: number[] = [];
    const rows = [];
    for (let i = 0; i < trials; i++) {
      const r = await runMultiturn({ ...run, ...words, url: t.urls, key: t.key });
      assertEquals(r.failed, 0);
      shares.push(r.cachedShare);
      rows.push(await t.shared.planes[0]!.store.db.select().from(sessionPlaces));
      t.shared.planes[0]!.clock.advance(11 * 60_000);
    }
    console.log(
      `shared places ${routing.sharedSessions !== false ? "on" : "off"}: cached ${
        shares.map((x) => `${(x * 100).toFixed(1)} %`).join(", ")
      }`,
    );
    return { shares, rows };
  } finally {
    await t.close();
  }
}

Deno.test("4 conversations whose turns go round 3 control planes stay on one replica each: as cached as on one control plane", async () => {
  const { shares, rows } = await cachedShares(2);
  for (const share of shares) {
    // The same figure as one control plane reaches (cache_placement_test.ts): 5 of 6 turns cached.
    assert(share >= 0.7, `cached share ${share.toFixed(3)}`);
  }
  const first = rows[0]!;
  assertEquals(first.length, 4, "one place per conversation, shared by all three");
  const perReplica = Map.groupBy(first, (r) => r.replicaId);
  assertEquals([...perReplica.values()].map((rs) => rs.length), [2, 2], "two on each replica");
});

Deno.test("without the shared places each control plane places the conversations its own way, and the caches go cold", async () => {
  // When the conversations' hashes happen to favour each replica twice, every router agrees by
  // chance (about half the runs); in the others they disagree. All of 12 runs lucky: 1 in 4,000.
  const { shares, rows } = await cachedShares(12, { sharedSessions: false });
  assertEquals(rows.flat().length, 0);
  const worst = Math.min(...shares);
  assert(worst < 0.5, `cached shares ${shares.map((x) => x.toFixed(3)).join(", ")}`);
});
