import { assert, assertEquals } from "../../tests/assert.ts";
import { startHarness } from "../../tests/helpers/harness.ts";
import { dialectTest } from "../../tests/helpers/stores.ts";
import { type KeyLookup, storeKeyLookup, wellFormed } from "./keys.ts";

/** The store read for keys, slowed to 50 ms and counted. */
function slowLookup(): { lookup: KeyLookup; reads: () => number; bind(l: KeyLookup): void } {
  let inner: KeyLookup | undefined;
  let reads = 0;
  return {
    lookup: {
      async byHash(hash) {
        reads++;
        await new Promise((r) => setTimeout(r, 50));
        return await inner!.byHash(hash);
      },
    },
    reads: () => reads,
    bind(l) {
      inner = l;
    },
  };
}

dialectTest(
  "200 concurrent requests with one key after its cache entry expired: one store read, no 429",
  async (dialect) => {
    const slow = slowLookup();
    const h = await startHarness({ dialect, keys: { lookup: slow.lookup, unknownPerMinute: 3 } });
    slow.bind(storeKeyLookup(h.store));
    try {
      assertEquals((await h.v1("/models")).status, 200);
      assertEquals(slow.reads(), 1);
      h.clock.advance(31_000); // past auth.key_cache_ms
      const env = { remoteAddr: { hostname: "10.1.1.1" } };
      const results = await Promise.all(
        Array.from(
          { length: 200 },
          () => h.app.request("/v1/models", { headers: { authorization: `Bearer ${h.key}` } }, env),
        ),
      );
      const statuses = results.map((r) => r.status);
      await Promise.all(results.map((r) => r.body?.cancel()));
      assertEquals(statuses.filter((s) => s !== 200).length, 0);
      assertEquals(slow.reads(), 2, "one read for the first request, one for all 200");
    } finally {
      await h.close();
    }
  },
);

dialectTest(
  "a mistyped key is refused without a store read; unknown keys from one address get 429, a valid key never",
  async (dialect) => {
    const slow = slowLookup();
    const h = await startHarness({ dialect, keys: { lookup: slow.lookup, unknownPerMinute: 3 } });
    slow.bind(storeKeyLookup(h.store));
    try {
      const env = { remoteAddr: { hostname: "10.2.2.2" } };
      const use = (key: string) =>
        h.app.request("/v1/models", { headers: { authorization: `Bearer ${key}` } }, env);
      // One character changed: the checksum catches it before the store is asked.
      const typo = h.key.slice(0, 20) + (h.key[20] === "A" ? "B" : "A") + h.key.slice(21);
      assert(!wellFormed(typo));
      assert(wellFormed(h.key));
      assertEquals((await use(typo)).status, 401);
      assertEquals(slow.reads(), 0);
      // Made-up keys: three are answered 401, then the address is told to slow down.
      for (let i = 0; i < 2; i++) assertEquals((await use(`sk-llmgw-guess${i}`)).status, 401);
      const limited = await use("sk-llmgw-guess-again");
      assertEquals(limited.status, 429);
      assertEquals((await limited.json()).error.code, "too_many_unknown_keys");
      assert(Number(limited.headers.get("retry-after")) > 0);
      // The valid key from the same address still works.
      assertEquals((await use(h.key)).status, 200);
      // Another address is not affected.
      const other = await h.app.request("/v1/models", {
        headers: { authorization: "Bearer sk-llmgw-elsewhere" },
      }, { remoteAddr: { hostname: "10.3.3.3" } });
      assertEquals(other.status, 401);
    } finally {
      await h.close();
    }
  },
);

dialectTest(
  "last used is kept in memory and written in a batch, not per request",
  async (dialect) => {
    const h = await startHarness({ dialect });
    try {
      const [before] = await h.deps.keys.list();
      assertEquals(before!.lastUsedAt, null);
      for (let i = 0; i < 5; i++) assertEquals((await h.v1("/models")).status, 200);
      const raw = await h.store.db.query.apiKeys.findFirst();
      assertEquals(raw!.lastUsedAt, null, "no write per request");
      assertEquals((await h.deps.keys.list())[0]!.lastUsedAt, h.clock.now());
      await h.deps.keys.flushUsed();
      const after = await h.store.db.query.apiKeys.findFirst();
      assertEquals(after!.lastUsedAt, h.clock.now());
    } finally {
      await h.close();
    }
  },
);

Deno.test("keys made before checksums pass the shape check; wrong shapes do not", () => {
  assert(wellFormed("sk-llmgw-" + "a".repeat(43)));
  assert(!wellFormed("sk-llmgw-" + "a".repeat(44)));
  assert(!wellFormed("sk-other-" + "a".repeat(49)));
});
