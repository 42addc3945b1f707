import { assert, assertEquals } from "../../tests/assert.ts";
import { FakeClock } from "../../core/clock.ts";
import { silentLogger } from "../../core/log.ts";
import { openStore, type Store } from "../../db/store.ts";
import { type LeaderDuty, Leadership } from "./leadership.ts";

const ttlMs = 3_000;

/** Two control planes, each with its own connections to one store file, and a shared clock. */
async function twoPlanes() {
  const dir = await Deno.makeTempDir();
  const clock = new FakeClock();
  const stores: Store[] = [];
  const plane = async (id: string) => {
    const store = await openStore(`${dir}/llmgw.db`);
    stores.push(store);
    const lead = new Leadership({
      store,
      clock,
      logger: silentLogger,
      id,
      url: `http://${id}.test`,
      ttlMs: () => ttlMs,
      monotonic: () => clock.now(),
    });
    const log: string[] = [];
    const duty: LeaderDuty = {
      name: "work",
      start: () => log.push("start"),
      stop: () => log.push("stop"),
    };
    lead.duty(duty);
    return { lead, log };
  };
  const a = await plane("a");
  const b = await plane("b");
  return {
    clock,
    a,
    b,
    async close() {
      for (const s of stores) s.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Lets the duties' start (run a microtask later) happen. */
const settle = () => new Promise((r) => setTimeout(r, 0));

Deno.test("one of two control planes leads; a standby takes over a lapsed lease with the next epoch", async () => {
  const t = await twoPlanes();
  try {
    await t.a.lead.tick();
    await t.b.lead.tick();
    await settle();
    assert(t.a.lead.isLeader);
    assert(!t.b.lead.isLeader);
    assertEquals(await t.b.lead.leader(), {
      id: "a",
      url: "http://a.test",
      epoch: 1,
      expiresAt: t.clock.now() + ttlMs,
    });
    assertEquals([t.a.log, t.b.log], [["start"], []]);

    // Renewals keep it: the epoch stays, the standby still cannot take it.
    t.clock.advance(ttlMs / 3);
    await t.a.lead.tick();
    await t.b.lead.tick();
    assertEquals([t.a.lead.isLeader, t.b.lead.isLeader, t.a.lead.epoch], [true, false, 1]);

    // The leader goes silent: its lease lapses (it stops leading by its own clock too).
    t.clock.advance(ttlMs);
    assert(!t.a.lead.isLeader);
    await t.b.lead.tick();
    await settle();
    assertEquals([t.b.lead.isLeader, t.b.lead.epoch], [true, 2]);
    assertEquals((await t.a.lead.leader())?.id, "b");

    // The old leader comes back: it finds the lease taken and stops its duties.
    await t.a.lead.tick();
    assert(!t.a.lead.isLeader);
    assertEquals([t.a.log, t.b.log], [["start", "stop"], ["start"]]);
  } finally {
    await t.close();
  }
});

Deno.test("a leader that stops gives the lease up: the standby takes it at its next try", async () => {
  const t = await twoPlanes();
  try {
    await t.a.lead.tick();
    await t.a.lead.stop();
    assertEquals(t.a.log, ["start", "stop"]);
    assertEquals(await t.b.lead.leader(), undefined);
    await t.b.lead.tick();
    assertEquals([t.b.lead.isLeader, t.b.lead.epoch], [true, 2]);
    // A stopped control plane does not try again.
    t.clock.advance(ttlMs * 2);
    await t.a.lead.tick();
    assert(!t.a.lead.isLeader);
  } finally {
    await t.close();
  }
});

Deno.test("a restart with the same id is a new term: it takes its lease back at once, at the next epoch", async () => {
  const dir = await Deno.makeTempDir();
  const clock = new FakeClock();
  const stores: Store[] = [];
  const start = async () => {
    const store = await openStore(`${dir}/llmgw.db`);
    stores.push(store);
    return new Leadership({
      store,
      clock,
      logger: silentLogger,
      id: "a",
      url: "http://a.test",
      ttlMs: () => ttlMs,
      monotonic: () => clock.now(),
    });
  };
  try {
    const first = await start();
    await first.tick();
    await first.tick();
    assertEquals([first.isLeader, first.epoch], [true, 1], "renewals keep the epoch");
    // Killed: no stop, the lease unlapsed. The next process under the same id leads at once,
    // but fenced apart from the one before (whose commands a node may still be reading).
    const second = await start();
    await second.tick();
    assertEquals([second.isLeader, second.epoch], [true, 2]);
    await second.tick();
    assertEquals(second.epoch, 2);
  } finally {
    for (const s of stores) s.close();
    await Deno.remove(dir, { recursive: true });
  }
});
