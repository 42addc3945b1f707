/**
 * The router's load poller against a real engine: the agent's metrics reader on a sim engine's
 * page, next to an engine that never answers. Here, not in server/, because it runs agent code.
 */
import { assert, assertEquals } from "../assert.ts";
import { FakeClock } from "../../core/clock.ts";
import type { LoadSnapshot } from "../../core/protocol/load_snapshot.ts";
import { startSimEngine } from "../../agent/sim_engine/serve.ts";
import { simAdapter } from "../../agent/engines/sim.ts";
import { readEngineLoad } from "../../agent/read_engine_load.ts";
import { LoadPoller } from "../../server/router/load_poller.ts";
import { ReplicaTable } from "../../server/router/replicas.ts";

Deno.test("the load poller reads each replica's engine, time-boxed; a silent engine is unknown, not zero", async () => {
  const engine = await startSimEngine({ apiKey: "k", slots: 2 });
  const clock = new FakeClock();
  const table = new ReplicaTable({ now: () => clock.now() });
  table.upsert({ id: "live", model: "m", baseUrl: engine.url, apiKey: "k", state: "ready" });
  table.upsert({
    id: "hung",
    model: "m",
    baseUrl: "http://127.0.0.1:9",
    apiKey: "k",
    state: "ready",
  });
  const poller = new LoadPoller(table, { intervalMs: 100, clock });
  try {
    assertEquals(table.get("live")?.load.known, false);
    poller.addSource((id) =>
      id === "live"
        ? readEngineLoad(fetch, engine.url, simAdapter, "k", clock.now())
        : id === "hung"
        ? new Promise<LoadSnapshot>(() => {})
        : undefined
    );
    const started = performance.now();
    await poller.pollOnce();
    assert(performance.now() - started < 1000, "a hung read does not hold the round");
    const live = table.get("live")!.load;
    assertEquals(live.known, true);
    assertEquals(live.running, 0);
    assertEquals(table.get("hung")?.load.known, false);
  } finally {
    poller.stop();
    await engine.close();
  }
});
