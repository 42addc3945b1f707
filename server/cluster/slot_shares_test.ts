/**
 * A replica's slots across control planes: three real apps on one SQLite store file route to the
 * same replica (r1, four slots); once they have exchanged demand, they never have more than four
 * requests on it together, however many each is asked for. The first leads: it grants each its
 * share, which the standbys take, reckoning their own only while no grant is fresh.
 */
import { and, eq } from "drizzle-orm";
import { slotDemand } from "../../db/schema.ts";
import { assert, assertEquals } from "../../tests/assert.ts";
import type { Harness } from "../../tests/helpers/harness.ts";
import { startPlanes } from "../../tests/helpers/shared_store.ts";
import { shareOut } from "./slot_shares.ts";

Deno.test("slots are shared by demand: spare dealt out in turn, past the slots in proportion", () => {
  const share = (slots: number, d: Record<string, number>) =>
    Object.fromEntries(shareOut(slots, new Map(Object.entries(d))));
  assertEquals(share(4, { a: 1, b: 1, c: 1 }), { a: 2, b: 1, c: 1 });
  assertEquals(share(4, { a: 0, b: 0 }), { a: 2, b: 2 });
  assertEquals(share(4, { a: 6, b: 6, c: 6 }), { a: 2, b: 1, c: 1 });
  assertEquals(share(10, { a: 10, b: 5 }), { a: 7, b: 3 });
  assertEquals(share(4, { a: 20, b: 0 }), { a: 4, b: 0 });
});

const chat = { model: "demo", max_tokens: 40, messages: [{ role: "user", content: "hi" }] };

async function until(what: string, ok: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

Deno.test("three control planes never have more than a replica's slots on it together", async () => {
  const { planes, close } = await startPlanes(3, {
    tokensPerSecond: 40,
    setUp: async (first) => {
      const set = await first.admin("PATCH", "limits/global/global", { rpm: 100_000 });
      assertEquals(set.status, 200, await set.text());
    },
  });
  const inFlight = () => planes.reduce((n, p) => n + p.deps.replicas.get("r1")!.inFlight, 0);
  const send = (p: Harness) =>
    p.v1("/chat/completions", chat, { headers: { authorization: `Bearer ${planes[0]!.key}` } })
      .then(async (res) => (await res.body?.cancel(), res.status));
  try {
    const slots = planes[0]!.deps.replicas.get("r1")!.slots;
    assertEquals(slots, 4);
    const first = planes.map(send);
    await until("one request in flight on each", () => inFlight() === 3);
    for (let round = 0; round < 2; round++) for (const p of planes) await p.slotShares.tick();
    const more = planes.flatMap((p) => Array.from({ length: 5 }, () => send(p)));
    let most = 0;
    const watch = setInterval(() => most = Math.max(most, inFlight()), 5);
    const statuses = await Promise.all([...first, ...more]);
    clearInterval(watch);
    assert(statuses.every((s) => s === 200), `statuses ${statuses}`);
    assert(most <= slots, `${most} in flight on r1 together, of ${slots} slots`);
    assert(most >= slots - 1, `only ${most} in flight at most`);
  } finally {
    await close();
  }
});

Deno.test("the leader grants each control plane its share of a replica by demand; standbys take it", async () => {
  const { planes, close } = await startPlanes(3, {
    tokensPerSecond: 10,
    setUp: async (first) => {
      const set = await first.admin("PATCH", "limits/global/global", { rpm: 100_000 });
      assertEquals(set.status, 200, await set.text());
    },
  });
  const [leader, one, two] = planes as [Harness, Harness, Harness];
  const send = (p: Harness) =>
    p.v1("/chat/completions", chat, { headers: { authorization: `Bearer ${leader.key}` } })
      .then(async (res) => (await res.body?.cancel(), res.status));
  const share = (p: Harness) => p.deps.replicas.get("r1")!.share;
  const grantOf = async (p: Harness) =>
    (await leader.store.db.select().from(slotDemand).where(
      and(eq(slotDemand.plane, p.slotShares.plane), eq(slotDemand.replicaId, "r1")),
    ))[0]?.granted;
  try {
    const running = [...Array.from({ length: 3 }, () => send(one)), send(two)];
    await until("four in flight", () => one.deps.replicas.get("r1")!.inFlight === 3);
    // Standbys alone: demand is written, nobody grants, each reckons its own.
    for (const p of [one, two]) await p.slotShares.tick();
    assertEquals(await grantOf(one), null);
    // The leader's round grants by demand (3 and 1 of 4, none to itself); standbys take it.
    await leader.slotShares.tick();
    for (const p of [one, two]) await p.slotShares.tick();
    assertEquals([await grantOf(leader), await grantOf(one), await grantOf(two)], [0, 3, 1]);
    assertEquals([share(leader), share(one), share(two)], [0, 3, 1]);
    // What a standby takes is the leader's grant, not its own reckoning.
    await leader.store.write((tx) =>
      tx.update(slotDemand).set({ granted: 2 }).where(
        and(eq(slotDemand.plane, one.slotShares.plane), eq(slotDemand.replicaId, "r1")),
      )
    );
    await one.slotShares.tick();
    assertEquals(share(one), 2);
    // A grant not renewed (the leader gone) lapses: the standby reckons its own again.
    leader.clock.advance(7_000);
    for (let round = 0; round < 2; round++) for (const p of [one, two]) await p.slotShares.tick();
    assertEquals(share(one), 3);
    assert((await Promise.all(running)).every((s) => s === 200));
  } finally {
    await close();
  }
});
