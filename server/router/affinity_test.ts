import { assert, assertEquals } from "../../tests/assert.ts";
import { startHarness } from "../../tests/helpers/harness.ts";
import { addHarnessReplica, addSimReplica, chat, usageRows } from "../../tests/helpers/routing.ts";

/** Which replica answered each request, in order, from the usage rows. */
async function answeredBy(h: Awaited<ReturnType<typeof startHarness>>): Promise<string[]> {
  const rows = await usageRows(h);
  // Rows come back in the order they were written (SQLite rowid order); ids share one fake time.
  return rows.map((r) => r.replicaId ?? "-");
}

Deno.test("a session stays on its replica; once sessions end, a new replica takes only the ones it wins", async () => {
  const h = await startHarness();
  // Slots to spare, so where sessions go is the hashing's choice, not the slots'.
  addHarnessReplica(h, { slots: 32 });
  const extra = [
    await addSimReplica(h, "r2", { slots: 32 }),
    await addSimReplica(h, "r3", { slots: 32 }),
  ];
  try {
    const sessions = Array.from({ length: 30 }, (_, i) => `session-${i}`);
    const send = async (s: string) => {
      const res = await h.v1("/chat/completions", chat("hello"), {
        headers: { "x-session-id": s },
      });
      assertEquals(res.status, 200);
      await res.body?.cancel();
    };
    for (const s of sessions) await send(s);
    for (const s of sessions) await send(s);
    const before = await answeredBy(h);
    const first = before.slice(0, 30);
    assertEquals(before.slice(30), first, "each session went to the same replica twice");
    assert(new Set(first).size === 3, "sessions spread over every replica");

    // A live session stays where its conversation is cached, new replica or not.
    extra.push(await addSimReplica(h, "r4", { slots: 32 }));
    for (const s of sessions) await send(s);
    assertEquals((await answeredBy(h)).slice(60), first, "no live session moved");

    // Sessions that went quiet are forgotten; coming back, only those r4 wins move, to r4.
    h.clock.advance(11 * 60_000);
    for (const s of sessions) await send(s);
    const after = (await answeredBy(h)).slice(90);
    const moved = after.filter((r, i) => r !== first[i]);
    assert(moved.every((r) => r === "r4"), "a session only moves to the new replica");
    assert(moved.length > 0 && moved.length <= 15, `${moved.length} of 30 sessions moved`);

    // The conversation itself is a session: the same opening messages, the same replica.
    const convo = [{ role: "system", content: "be brief" }, { role: "user", content: "hi there" }];
    for (let turn = 0; turn < 4; turn++) {
      const messages = [
        ...convo,
        ...Array.from({ length: turn }, () => ({ role: "user", content: "more" })),
      ];
      const res = await h.v1("/chat/completions", { model: "demo", max_tokens: 2, messages });
      await res.body?.cancel();
    }
    const turns = (await answeredBy(h)).slice(120);
    assertEquals(new Set(turns).size, 1);
  } finally {
    for (const e of extra) await e.close();
    await h.close();
  }
});

Deno.test("a replica holds as many live sessions as its slots; the rest go where there is room, then to the least full", async () => {
  const h = await startHarness();
  addHarnessReplica(h, { slots: 2 });
  const extra = [await addSimReplica(h, "r2", { slots: 2 })];
  try {
    const send = async (s: string) => {
      const res = await h.v1("/chat/completions", chat("hello"), {
        headers: { "x-session-id": s },
      });
      assertEquals(res.status, 200);
      await res.body?.cancel();
    };
    // Hashing alone puts 3 of these 4 on one replica (the case); slots bound it at 2.
    for (const s of ["a", "b", "c", "d"]) await send(s);
    const four = await answeredBy(h);
    assertEquals(four.filter((r) => r === "r1").length, 2, four.join(","));
    assertEquals(four.filter((r) => r === "r2").length, 2, four.join(","));
    for (const s of ["a", "b", "c", "d"]) await send(s);
    assertEquals((await answeredBy(h)).slice(4), four, "each stayed where it was placed");
    // Past every slot, sessions still spread evenly.
    for (const s of ["e", "f", "g", "h"]) await send(s);
    const eight = (await answeredBy(h)).slice(8);
    assertEquals(eight.filter((r) => r === "r1").length, 2, eight.join(","));
  } finally {
    for (const e of extra) await e.close();
    await h.close();
  }
});

Deno.test("a slow replica gets less traffic, yet some", async () => {
  const h = await startHarness();
  // Prompt processing at 60 tokens/s: a first token about a quarter of a second late.
  // Slots to spare: every session fits on the fast one, so only speed decides.
  const slow = await addSimReplica(h, "slow", { promptTokensPerSecond: 60, slots: 64 });
  try {
    addHarnessReplica(h, { slots: 64 });
    const prompt = "one two three four five six seven eight nine ten eleven twelve";
    for (let round = 0; round < 4; round++) {
      const batch = await Promise.all(
        Array.from(
          { length: 10 },
          (_, i) =>
            // Each its own prompt: the sim engine's prompt cache would skip a repeated one.
            h.v1("/chat/completions", chat(`${round} ${i} ${prompt}`, { stream: true }), {
              headers: { "x-session-id": `s-${round}-${i}` },
            }),
        ),
      );
      await Promise.all(batch.map((r) => r.text()));
    }
    const by = await answeredBy(h);
    const slowCount = by.filter((r) => r === "slow").length;
    const fastCount = by.filter((r) => r === "r1").length;
    assertEquals(slowCount + fastCount, 40);
    assert(slowCount >= 1, "the slow replica still gets some");
    assert(slowCount < fastCount, `slow ${slowCount}, fast ${fastCount}`);
    // Once measured (after the first round), it gets well under half.
    const later = by.slice(10).filter((r) => r === "slow").length;
    assert(later >= 1 && later <= 10, `slow got ${later} of the last 30`);
    const slowTtft = h.deps.replicas.get("slow")?.ttft.value(h.clock.now()) ?? 0;
    assert(slowTtft > 100, `slow replica's smoothed TTFT ${slowTtft}`);
    // Five minutes without an answer and it is forgotten, so it is tried again.
    h.clock.advance(5 * 60_000);
    assertEquals(h.deps.replicas.get("slow")?.ttft.value(h.clock.now()), undefined);
  } finally {
    await slow.close();
    await h.close();
  }
});

Deno.test("requests sharing a long prompt prefix go to the replica that saw it last", async () => {
  const h = await startHarness();
  addHarnessReplica(h, { slots: 16 });
  const others = [
    await addSimReplica(h, "r2", { slots: 16 }),
    await addSimReplica(h, "r3", { slots: 16 }),
  ];
  try {
    const system = "You are a careful assistant. ".repeat(60);
    const ask = async (question: string, session: string) => {
      const res = await h.v1("/chat/completions", {
        model: "demo",
        max_tokens: 2,
        messages: [{ role: "system", content: system }, { role: "user", content: question }],
      }, { headers: { "x-session-id": session } });
      await res.body?.cancel();
    };
    await ask("first question", "a");
    for (let i = 0; i < 10; i++) await ask(`question number ${i}`, `other-${i}`);
    const by = await answeredBy(h);
    assertEquals(new Set(by).size, 1, `all on ${by[0]}: ${by.join(",")}`);
    // Short prompts have no prefix worth following: sessions spread.
    for (let i = 0; i < 12; i++) {
      const res = await h.v1("/chat/completions", chat("short"), {
        headers: { "x-session-id": `short-${i}` },
      });
      await res.body?.cancel();
    }
    assert(new Set((await answeredBy(h)).slice(11)).size > 1);
  } finally {
    for (const e of others) await e.close();
    await h.close();
  }
});

Deno.test("x-llmgw-profile picks the profile; an unknown one is a 400 naming the header", async () => {
  const h = await startHarness();
  try {
    const bad = await h.v1("/chat/completions", chat("hi"), {
      headers: { "x-llmgw-profile": "fastest" },
    });
    assertEquals(bad.status, 400);
    const body = await bad.json();
    assertEquals(body.error.code, "invalid_request");
    assertEquals(body.error.param, "x-llmgw-profile");
    const ok = await h.v1("/chat/completions", chat("hi"), {
      headers: { "x-llmgw-profile": "long-context" },
    });
    assertEquals(ok.status, 200);
    await ok.body?.cancel();
    await h.deps.catalog.upsert({
      name: "demo",
      engine: "sim",
      source: "",
      routingProfile: "batch",
    });
    const byModel = await h.v1("/chat/completions", chat("hi"));
    await byModel.body?.cancel();
    const rows = await usageRows(h);
    assertEquals(rows.map((r) => r.profile).sort(), ["batch", "long-context"]);
  } finally {
    await h.close();
  }
});
