/**
 * What the shared session places cost the request path, on an embedded store file with `live`
 * sessions already placed over 4 replicas: `deno run -A bench/session_places_bench.ts 50000`.
 * Prints the mean per call of each step, in µs.
 */
import { silentLogger } from "../core/log.ts";
import { sessionPlaces } from "../db/schema.ts";
import { openStore } from "../db/store.ts";
import { SessionPlaces } from "../server/router/session_places.ts";
import { SessionTable } from "../server/router/session_table.ts";

const live = Number(Deno.args[0] ?? 50_000);
const ttlMs = 600_000;
const replicas = ["n0/a", "n1/a", "n2/a", "n3/a"].map((id) => ({ id, cap: 8 }));
const dir = await Deno.makeTempDir({ prefix: "llmgw-places-bench-" });
const store = await openStore(`${dir}/llmgw.db`);
try {
  await store.write(async (tx) => {
    for (let i = 0; i < live; i += 500) {
      const n = Math.min(500, live - i);
      await tx.insert(sessionPlaces).values(Array.from({ length: n }, (_, j) => ({
        sessionKey: 1e9 + i + j,
        replicaId: replicas[(i + j) % replicas.length]!.id,
        seenAt: 1_000,
      })));
    }
  });
  const sessions = new SessionTable({ maxEntries: 100_000, ttlMs });
  const places = new SessionPlaces({
    store,
    logger: silentLogger,
    ttlMs,
    recheckMs: 5_000,
    waitMs: 5_000,
    maxEntries: 100_000,
  }, sessions);
  const time = async (name: string, n: number, step: (i: number) => Promise<unknown>) => {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await step(i);
    console.log(`${name}: ${((performance.now() - t0) / n * 1000).toFixed(0)} µs`);
  };
  console.log(`${live} live sessions`);
  await time("new session, learn (a row read and a bounded count)", 200, (i) => {
    return places.learn(i, replicas, 2_000);
  });
  await time("new session, publish (one insert; not waited for)", 200, (i) => {
    sessions.place(i, replicas[i % 4]!.id, 2_000);
    return places.publish(i, replicas[i % 4]!.id, false, 2_000);
  });
  await time("known session, recheck due (a row read)", 200, (i) => {
    return places.learn(i, replicas, 10_000);
  });
  await time("known session, within recheck (memory)", 2_000, (i) => {
    return places.learn(i % 200, replicas, 10_000);
  });
  await places.close(10_000);
} finally {
  await store.close();
  await Deno.remove(dir, { recursive: true });
}
