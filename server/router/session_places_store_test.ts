/**
 * The shared session places on each dialect: two control planes (two SessionPlaces, each with
 * its own session table) on one store.
 */
import { assertEquals } from "../../tests/assert.ts";
import { storeTest } from "../../tests/helpers/stores.ts";
import { silentLogger } from "../../core/log.ts";
import { sessionPlaces } from "../../db/schema.ts";
import type { Store } from "../../db/store.ts";
import { SessionPlaces } from "./session_places.ts";
import { SessionTable } from "./session_table.ts";

const ttlMs = 60_000;

function plane(store: Store) {
  const sessions = new SessionTable({ maxEntries: 100, ttlMs });
  const places = new SessionPlaces(
    { store, logger: silentLogger, ttlMs, recheckMs: 1_000, waitMs: 5_000, maxEntries: 100 },
    sessions,
  );
  return { sessions, places };
}

storeTest(
  "two control planes placing one new session at once agree on the first one's place",
  async (store) => {
    const [a, b] = [plane(store), plane(store)];
    const ids = [{ id: "r1", cap: 8 }, { id: "r2", cap: 8 }];
    assertEquals(await a.places.learn(7, ids, 0), new Map([["r1", 0], ["r2", 0]]));
    assertEquals(await b.places.learn(7, ids, 0), new Map([["r1", 0], ["r2", 0]]));
    a.sessions.place(7, "r1", 0);
    b.sessions.place(7, "r2", 0);
    await a.places.publish(7, "r1", false, 0);
    await b.places.publish(7, "r2", false, 0);
    assertEquals(b.sessions.where(7, 1), "r1", "the later one adopts the first one's place");
    // A third control plane finds it, and counts it for a new session.
    const c = plane(store);
    assertEquals(await c.places.learn(7, ids, 10), undefined);
    assertEquals(c.sessions.where(7, 10), "r1");
    assertEquals(await c.places.learn(8, ids, 10), new Map([["r1", 1], ["r2", 0]]));
  },
);

storeTest(
  "a moved session's new place reaches the others at their next look; a touch never moves it back",
  async (store) => {
    const [a, b] = [plane(store), plane(store)];
    await a.places.publish(7, "r1", false, 0);
    assertEquals(
      await b.places.learn(7, [{ id: "r1", cap: 8 }, { id: "r2", cap: 8 }], 0),
      undefined,
    );
    assertEquals(b.sessions.where(7, 0), "r1");
    await a.places.publish(7, "r2", true, 100);
    // b still sends it to r1 and keeps its row alive from there: the move stands.
    b.places.touch(7, "r1", 100);
    await b.places.flush(100);
    assertEquals(
      await b.places.learn(7, [{ id: "r1", cap: 8 }, { id: "r2", cap: 8 }], 500),
      undefined,
      "trusted for recheckMs",
    );
    assertEquals(b.sessions.where(7, 500), "r1");
    await b.places.learn(7, [{ id: "r1", cap: 8 }, { id: "r2", cap: 8 }], 1_500);
    assertEquals(b.sessions.where(7, 1_500), "r2");
  },
);

storeTest(
  "a place past the TTL counts for nothing, is taken over by a new placement, and is swept",
  async (store) => {
    const a = plane(store);
    await a.places.publish(7, "r1", false, 0);
    await a.places.publish(9, "r1", false, 0);
    const later = ttlMs + 1;
    const b = plane(store);
    assertEquals(await b.places.learn(8, [{ id: "r1", cap: 8 }], later), new Map([["r1", 0]]));
    await b.places.publish(7, "r2", false, later);
    assertEquals(b.sessions.where(7, later), undefined, "no adoption: its own place stands");
    assertEquals((await store.db.select().from(sessionPlaces)).length, 2);
    await b.places.flush(later);
    const rows = await store.db.select().from(sessionPlaces);
    assertEquals(rows.map((r) => [r.sessionKey, r.replicaId]), [[7, "r2"]]);
    await a.places.close(later);
    await b.places.close(later);
  },
);

storeTest(
  "alone on the store (one box), places are neither read nor written: the local table decides",
  async (store) => {
    const sessions = new SessionTable({ maxEntries: 100, ttlMs });
    const peers = { alone: true, onJoined() {} };
    const places = new SessionPlaces(
      {
        store,
        logger: silentLogger,
        ttlMs,
        recheckMs: 1_000,
        waitMs: 5_000,
        maxEntries: 100,
        peers,
      },
      sessions,
    );
    assertEquals(await places.learn(7, [{ id: "r1", cap: 8 }], 0), undefined);
    await places.publish(7, "r1", false, 0);
    places.touch(7, "r1", 1);
    await places.flush(1);
    assertEquals(await store.db.select().from(sessionPlaces), []);
    peers.alone = false;
    await places.publish(7, "r1", false, 2);
    assertEquals((await store.db.select().from(sessionPlaces)).length, 1, "once another is there");
  },
);
