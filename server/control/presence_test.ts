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

Deno.test("a second running process with one control id is refused at start; a restart is not", async () => {
  const dir = await Deno.makeTempDir();
  const stores = [
    await openStore(`${dir}/llmgw.db`),
    await openStore(`${dir}/llmgw.db`),
    await openStore(`${dir}/llmgw.db`),
  ];
  const { systemClock } = await import("../../core/clock.ts");
  const presence = (i: number) =>
    new ControlPresence({
      store: stores[i]!,
      clock: systemClock,
      logger: silentLogger,
      id: "cloned-vm:/var/lib/llmgw",
      everyMs: () => 100,
    });
  const running = presence(0);
  try {
    await running.start("http://10.0.0.1:8080", []);
    const twin = presence(1);
    const refused = await twin.start("http://10.0.0.2:8080", []).then(() => undefined, (e) => e);
    twin.stop();
    assert(refused instanceof Error, "the twin is refused");
    assert(/Another control plane is running with control id/.test(refused.message));
    assert(refused.message.includes("http://10.0.0.1:8080"), refused.message);
    // The first stops (a crash leaves its row fresh); the next process under the id goes on.
    running.stop();
    const restarted = presence(2);
    await restarted.start("http://10.0.0.1:8080", []);
    restarted.stop();
  } finally {
    running.stop();
    for (const s of stores) s.close();
    await Deno.remove(dir, { recursive: true });
  }
});
