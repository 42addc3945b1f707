/**
 * A control plane alone on its store (one box) exchanges nothing through it; the moment a second
 * one appears, both know, and the exchanges start at once rather than at their next beat.
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { FakeClock } from "../../core/clock.ts";
import { silentLogger } from "../../core/log.ts";
import { openStore } from "../../db/store.ts";
import { rateCounts } from "../../db/schema.ts";
import { RateWindows } from "../accounting/rate_windows.ts";
import { WindowExchange } from "../cluster/window_exchange.ts";
import { eventually } from "../../tests/helpers/llmgw_process.ts";
import { ControlPresence } from "./presence.ts";

Deno.test("alone, the rate exchange writes nothing; a second control plane starts it at once", async () => {
  const dir = await Deno.makeTempDir();
  const storeA = await openStore(`${dir}/llmgw.db`);
  const storeB = await openStore(`${dir}/llmgw.db`);
  const clock = new FakeClock();
  const presence = (store: typeof storeA, id: string) =>
    new ControlPresence({
      store,
      clock,
      logger: silentLogger,
      id,
      everyMs: () => 1_000,
      watchMs: 20,
    });
  const a = presence(storeA, "a");
  const b = presence(storeB, "b");
  const windows = new RateWindows();
  const exchange = new WindowExchange({
    store: storeA,
    clock,
    logger: silentLogger,
    windows,
    running: { runningHere: () => [], runningElsewhere: () => {} },
    plane: "a",
    intervalMs: 1_000,
    peers: a,
  });
  let joined = 0;
  a.onJoined(() => joined++);
  try {
    await a.start("http://a.test", []);
    assert(a.alone, "nobody else is on the store");
    windows.get("key|k1").add(clock.now(), 3);
    await exchange.tick();
    assertEquals(await storeA.db.select().from(rateCounts), [], "nothing written alone");

    await b.start("http://b.test", []);
    assert(!b.alone, "the second sees the first at once");
    await eventually(
      "the first sees the second",
      () => Promise.resolve(a.alone ? undefined : true),
      5_000,
      10,
    );
    assertEquals(joined, 1);
    await eventually(
      "the joining wakes the exchange",
      async () => {
        const rows = await storeA.db.select().from(rateCounts);
        return rows.some((r) => r.name === "key|k1" && r.count === 3) || undefined;
      },
      5_000,
      20,
    );
  } finally {
    a.stop();
    b.stop();
    await exchange.close();
    storeA.close();
    storeB.close();
    await Deno.remove(dir, { recursive: true });
  }
});
