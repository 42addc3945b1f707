/**
 * Rate limits across control planes: three real apps on one store (SQLite file and PostgreSQL)
 * and one clock, one key limited to 60 requests a minute, clients spread over all three.
 * The exchange runs on the test's beat (every simulated second, the product's default interval)
 * rather than its timer, so a whole minute passes in the time the requests take.
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { FakeClock } from "../../core/clock.ts";
import type { Harness } from "../../tests/helpers/harness.ts";
import { type SharedStore, startPlanes } from "../../tests/helpers/shared_store.ts";
import { type StoreKind, storeKinds } from "../../tests/helpers/stores.ts";
import { skipNote } from "../../tests/helpers/skip.ts";

async function threePlanes(kind?: StoreKind): Promise<SharedStore> {
  const clock = new FakeClock();
  // Start on a minute's turn, so the minute measured is one window with nothing before it.
  clock.advance(60_000 - (clock.now() % 60_000));
  return await startPlanes(3, {
    clock,
    ...(kind ? { kind } : {}),
    setUp: async (first) => {
      const set = await first.admin("PATCH", "limits/global/global", { rpm: 60 });
      assertEquals(set.status, 200, await set.text());
    },
  });
}

async function ask(plane: Harness, key: string): Promise<number> {
  const res = await plane.v1(
    "/chat/completions",
    { model: "demo", messages: [{ role: "user", content: "hi" }], max_tokens: 1 },
    { headers: { authorization: `Bearer ${key}` } },
  );
  await res.body?.cancel();
  return res.status;
}

for (const kind of storeKinds) {
  Deno.test({
    name: `a key limited to 60 rpm over three control planes gets 60 in a minute, plus at most ` +
      `2 s's worth [${kind.dialect}]${skipNote(kind.missing)}`,
    ignore: !!kind.missing,
    fn: () => sixtyAMinuteOverThree(kind),
  });
}

async function sixtyAMinuteOverThree(kind: StoreKind): Promise<void> {
  const { planes, close } = await threePlanes(kind);
  try {
    const clock = planes[0]!.clock;
    const key = planes[0]!.key;
    const begin = clock.now();
    let answered = 0;
    let refused = 0;
    const perPlane = [0, 0, 0];
    // Eight requests a second, spread over the three, for one minute; the exchange every second.
    for (let step = 0; step < 240; step++) {
      for (let i = 0; i < 2; i++) {
        const which = (step * 2 + i) % 3;
        const status = await ask(planes[which]!, key);
        if (status === 200) answered++, perPlane[which]!++;
        else if (status === 429) refused++;
        else throw new Error(`unexpected status ${status}`);
      }
      clock.advance(250);
      if (step % 4 === 3) { for (const p of planes) await p.people.exchange.tick(); }
    }
    assertEquals(clock.now() - begin, 60_000);
    // 60 rpm allows 2 requests in 2 s: the most the exchange's lag may add.
    assert(answered <= 62, `answered ${answered} (${perPlane}) in the minute, over 60 + 2`);
    // The key gets its limit once, not a third of it per control plane.
    assert(answered >= 57, `answered only ${answered} (${perPlane}) of 60`);
    assert(perPlane.every((n) => n > 0), `every control plane answered some: ${perPlane}`);
    assertEquals(answered + refused, 480);
  } finally {
    await close();
  }
}

Deno.test("a fresh key's burst over three control planes is shared like an old key's: at most 60 + 10 %", async () => {
  const { planes, close } = await threePlanes();
  try {
    // The control planes know of each other; the key has never been used, so no window for it
    // exists anywhere until the burst makes one on each control plane at once.
    for (let round = 0; round < 2; round++) {
      for (const p of planes) await p.people.exchange.tick();
    }
    const key = planes[0]!.key;
    const statuses = await Promise.all(
      Array.from({ length: 240 }, (_, i) => ask(planes[i % 3]!, key)),
    );
    const admitted = statuses.filter((s) => s === 200).length;
    assertEquals(statuses.filter((s) => s !== 200 && s !== 429), []);
    // Before, each control plane's new window believed itself alone: 180 admitted.
    assert(admitted <= 66, `admitted ${admitted} of 240 on a 60 rpm key`);
    assert(admitted >= 54, `admitted only ${admitted}: the burst should get about its limit`);
  } finally {
    await close();
  }
});

Deno.test("rate counts are absolute per minute: a repeated exchange changes nothing", async () => {
  const { planes, close } = await threePlanes();
  try {
    const [a, b, c] = planes as [Harness, Harness, Harness];
    for (let i = 0; i < 10; i++) assertEquals(await ask(a, a.key), 200);
    for (let round = 0; round < 3; round++) {
      for (const p of planes) await p.people.exchange.tick();
    }
    // b and c have seen a's ten; each of them has fifty left, shared between the three.
    const res = await b.v1(
      "/chat/completions",
      { model: "demo", messages: [{ role: "user", content: "hi" }], max_tokens: 1 },
      { headers: { authorization: `Bearer ${a.key}` } },
    );
    await res.body?.cancel();
    assertEquals(res.status, 200);
    assertEquals(res.headers.get("x-ratelimit-remaining-requests"), "49");
    for (let round = 0; round < 2; round++) {
      for (const p of [c, a, b]) await p.people.exchange.tick();
    }
    const again = await c.v1(
      "/chat/completions",
      { model: "demo", messages: [{ role: "user", content: "hi" }], max_tokens: 1 },
      { headers: { authorization: `Bearer ${a.key}` } },
    );
    await again.body?.cancel();
    assertEquals(again.headers.get("x-ratelimit-remaining-requests"), "48");
  } finally {
    await close();
  }
});

Deno.test("max_parallel counts the requests a key runs on every control plane", async () => {
  const { planes, close } = await startPlanes(3, {
    tokensPerSecond: 20,
    setUp: async (first) => {
      const set = await first.admin("PATCH", "limits/global/global", {
        rpm: 100_000,
        max_parallel: 2,
      });
      assertEquals(set.status, 200, await set.text());
    },
  });
  try {
    const key = planes[0]!.key;
    const send = (p: Harness) =>
      p.v1(
        "/chat/completions",
        { model: "demo", messages: [{ role: "user", content: "hi" }], max_tokens: 40 },
        { headers: { authorization: `Bearer ${key}` } },
      );
    const tick = async () => {
      for (const p of planes) await p.people.exchange.tick();
    };
    // Two long requests, on two control planes, each heard of by the others.
    const running = [send(planes[0]!)];
    await tick();
    running.push(send(planes[1]!));
    await tick();
    const third = await send(planes[2]!);
    const body = await third.json();
    assertEquals([third.status, body.error?.code], [429, "parallel_limited"]);
    for (const res of await Promise.all(running)) {
      assertEquals(res.status, 200);
      await res.body?.cancel();
    }
    // Once they end and the others hear so, the third control plane admits the key again.
    await tick();
    const later = await send(planes[2]!);
    assertEquals(later.status, 200);
    await later.body?.cancel();
  } finally {
    await close();
  }
});
