/**
 * The sign-in throttle in the store, on both dialects: waits grow past the free failures up to a
 * cap and are forgotten; a refused attempt counts nothing; names are kept only as hashes. And
 * across control planes: failures from one address spread over two (real apps on one store) slow
 * it on both, as if they had all come to one.
 */
import { FakeClock } from "../../core/clock.ts";
import { signInThrottles } from "../../db/schema.ts";
import { assert, assertEquals } from "../../tests/assert.ts";
import type { Harness } from "../../tests/helpers/harness.ts";
import { startPlanes } from "../../tests/helpers/shared_store.ts";
import { storeKinds, storeTest } from "../../tests/helpers/stores.ts";
import { skipNote } from "../../tests/helpers/skip.ts";
import { StoreThrottle } from "./store_throttle.ts";

const options = { free: 2, baseMs: 1_000, maxMs: 8_000, forgetMs: 60_000 };

storeTest(
  "a throttle's waits grow from the first failure past the free ones, up to a cap, and are forgotten",
  async (store) => {
    const clock = new FakeClock();
    const t = new StoreThrottle({ store, clock, kinds: { address: options } });
    const take = () => t.take([["address", "10.0.0.7"]]);
    assertEquals([await take(), await take()], [0, 0]);
    const waits: number[] = [];
    for (let i = 0; i < 5; i++) {
      const wait = await take();
      waits.push(wait);
      // Asked again while it waits: refused with what is left, and not counted.
      clock.advance(wait / 2);
      assertEquals(await take(), wait / 2);
      clock.advance(wait / 2);
      assertEquals(await take(), 0);
    }
    assertEquals(waits, [1_000, 2_000, 4_000, 8_000, 8_000]);
    clock.advance(60_000);
    assertEquals(await take(), 0);
    const rows = await store.db.select().from(signInThrottles);
    assertEquals(rows.length, 1, "a forgotten name's row is pruned, the new one kept");
    assertEquals(JSON.stringify(rows).includes("10.0.0.7"), false, "only a hash of the name");
    await t.forgive("address", "10.0.0.7");
    assertEquals(await store.db.select().from(signInThrottles), []);
  },
);

const signIn = (h: Harness, email: string, addr: string) =>
  h.app.request("http://gw/auth/login", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: "wrong" }),
  }, { remoteAddr: { hostname: addr } });

for (const kind of storeKinds) {
  Deno.test({
    name: `failed sign-ins from one address spread over two control planes slow it on both ` +
      `[${kind.dialect}]${skipNote(kind.missing)}`,
    ignore: !!kind.missing,
    fn: async () => {
      const { planes, close } = await startPlanes(2, { kind });
      try {
        // Ten free failures (each to another account), five on each control plane.
        for (let i = 0; i < 10; i++) {
          const res = await signIn(planes[i % 2]!, `x${i}@acme.example`, "10.9.9.8");
          assertEquals(res.status, 401, await res.text());
        }
        for (const p of planes) {
          const res = await signIn(p, "y@acme.example", "10.9.9.8");
          assertEquals(res.status, 429, await res.text());
          assert(Number(res.headers.get("retry-after")) >= 1);
        }
        // Another address is not slowed by it, on either.
        assertEquals((await signIn(planes[1]!, "y@acme.example", "10.1.2.3")).status, 401);
      } finally {
        await close();
      }
    },
  });
}
