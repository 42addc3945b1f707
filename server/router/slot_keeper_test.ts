import { assert, assertEquals } from "../../tests/assert.ts";
import { fakeServer } from "../../tests/helpers/routing.ts";
import { SlotKeeper } from "./slot_keeper.ts";

Deno.test("the slot keeper pins and saves slots only while no other control plane routes to the replica", async () => {
  const engine = fakeServer(() => new Response("{}"));
  try {
    const keeper = new SlotKeeper({
      engines: new Set(["llamacpp"]),
      maxSaved: 8,
      timeoutMs: 5_000,
    });
    const alone = { id: "a", baseUrl: engine.url, apiKey: "k", slots: 1 };
    for (const session of [1, 2]) {
      const claim = await keeper.claim(alone, "llamacpp", session);
      assertEquals(claim?.slot, 0);
      claim!.release();
    }
    assertEquals(engine.hits(), 1, "session 1's cache saved before session 2 took its slot");
    const shared = { id: "b", baseUrl: engine.url, apiKey: "k", slots: 1, share: 1 };
    for (const session of [1, 2, 3]) {
      assert(await keeper.claim(shared, "llamacpp", session) === undefined);
    }
    assertEquals(engine.hits(), 1, "no slot actions: the engine chooses slots");
  } finally {
    await engine.close();
  }
});
