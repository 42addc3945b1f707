import { assert, assertEquals } from "../../tests/assert.ts";
import { startHarness } from "../../tests/helpers/harness.ts";
import { addHarnessReplica, chat, usageRows } from "../../tests/helpers/routing.ts";
import { AppError } from "../../core/errors.ts";
import { Admission } from "./slots.ts";
import { eventually } from "../../tests/helpers/llmgw_process.ts";

/** Polls (every 5 ms, up to 10 s) rather than sleeping a guessed while: a busy machine is slow. */
const until = (what: string, cond: () => boolean) =>
  eventually(what, () => Promise.resolve(cond() || undefined), 10_000, 5);

Deno.test("past its deadline a queued request gets 503 queue_timeout with Retry-After", async () => {
  const h = await startHarness({ tokensPerSecond: 100, routing: { queueTimeoutMs: 100 } });
  try {
    addHarnessReplica(h, { slots: 1 });
    // Holds the only slot for about two seconds, far past the 100 ms queue deadline.
    const long = h.v1("/chat/completions", chat("hi", { max_tokens: 200 }));
    await until("the long request holds the slot", () => h.deps.replicas.get("r1")?.inFlight === 1);
    const res = await h.v1("/chat/completions", chat("hi"));
    assertEquals(res.status, 503);
    assert(Number(res.headers.get("retry-after")) >= 1);
    const body = await res.json();
    assertEquals(body.error.code, "queue_timeout");
    assertEquals(body.error.type, "server_error");
    assertEquals((await long).status, 200);
    const rows = await usageRows(h);
    const timedOut = rows.find((r) => r.status === 503);
    assert(timedOut && timedOut.queueMs >= 90, "the wait is recorded");
  } finally {
    await h.close();
  }
});

Deno.test("a queued request is answered when room frees, and leaves the queue when its client goes", async () => {
  const h = await startHarness({ tokensPerSecond: 200, routing: { queueTimeoutMs: 5_000 } });
  try {
    addHarnessReplica(h, { slots: 1 });
    // Holds the only slot for about two seconds, while the other two queue behind it.
    const first = h.v1("/chat/completions", chat("hi", { max_tokens: 400 }));
    await until(
      "the first request holds the slot",
      () => h.deps.replicas.get("r1")?.inFlight === 1,
    );
    const leaving = new AbortController();
    const gone = h.v1("/chat/completions", chat("bye"), { signal: leaving.signal });
    const waits = h.v1("/chat/completions", chat("hi again"));
    await until("both queued", () => h.deps.routing.admission.waiting("demo") === 2);
    leaving.abort();
    await gone.catch(() => {});
    assertEquals(h.deps.routing.admission.waiting("demo"), 1);
    assertEquals((await first).status, 200);
    const second = await waits;
    assertEquals(second.status, 200);
    await second.body?.cancel();
    const rows = await usageRows(h);
    const queued = rows.filter((r) => r.status === 200).sort((a, b) => b.queueMs - a.queueMs)[0];
    assert((queued?.queueMs ?? 0) > 0);
    assertEquals(h.deps.replicas.get("r1")?.inFlight, 0);
  } finally {
    await h.close();
  }
});

Deno.test("interactive requests go first, yet batch gets its share while both wait", async () => {
  const admission = new Admission({ timeoutMs: 10_000, batchSharePercent: 25 });
  let room = 0;
  const take = () => (room > 0 ? (room--, true) : undefined);
  const order: string[] = [];
  const signal = new AbortController().signal;
  const waits: Promise<unknown>[] = [];
  for (let i = 0; i < 4; i++) {
    waits.push(
      Promise.resolve(admission.admit("m", "batch", take, signal)).then(() => order.push("b")),
    );
  }
  for (let i = 0; i < 8; i++) {
    waits.push(
      Promise.resolve(admission.admit("m", "interactive", take, signal)).then(() =>
        order.push("i")
      ),
    );
  }
  for (let i = 0; i < 12; i++) {
    room = 1;
    admission.wake("m");
    await Promise.resolve();
  }
  await Promise.all(waits);
  assertEquals(order.join(""), "iiibiiibiibb");
});

Deno.test("a queue deadline rejects with queue_timeout and a retry hint", async () => {
  const admission = new Admission({ timeoutMs: 10, batchSharePercent: 20 });
  const err = await Promise.resolve(
    admission.admit("m", "batch", () => undefined, new AbortController().signal),
  ).catch((e) => e);
  assert(err instanceof AppError);
  assertEquals(err.code, "queue_timeout");
  assert((err.hints.retryAfterS ?? 0) >= 1);
  assertEquals(admission.waiting("m"), 0);
});

Deno.test("fair share: a key with 20 streams queued behind its 4 running, and another key's one request: the second takes the first slot that frees", async () => {
  const h = await startHarness({ tokensPerSecond: 200, routing: { queueTimeoutMs: 20_000 } });
  try {
    const { makeTenant, ok } = await import("../../tests/helpers/tenants.ts");
    const acme = await makeTenant(h, "acme");
    const globex = await makeTenant(h, "globex");
    await ok(h, { bearer: h.adminToken }, "PATCH", "/api/v1/limits/global/global", {
      rpm: 100_000,
      tpm: 100_000_000,
    });
    const refused = await ok(
      h,
      { bearer: h.adminToken },
      "PATCH",
      `/api/v1/limits/team/${acme.team.id}`,
      { weight: 2 },
      400,
    );
    assertEquals((refused as { error: { param: string } }).error.param, "weight");
    addHarnessReplica(h, { slots: 4 });
    const order: string[] = [];
    const send = async (who: string, key: string) => {
      const res = await h.v1(
        "/chat/completions",
        chat("tell me a story", {
          max_tokens: 40,
          stream: true,
        }),
        { headers: { authorization: `Bearer ${key}` } },
      );
      // A stream's headers come with its first token: the moment it got a slot.
      order.push(who);
      assertEquals(res.status, 200);
      await res.text();
    };
    const flood = Array.from({ length: 24 }, () => send("acme", acme.member.key));
    while (h.deps.routing.admission.waiting("demo") < 20) {
      await new Promise((r) => setTimeout(r, 5));
    }
    const single = send("globex", globex.member.key);
    await Promise.all([...flood, single]);
    assertEquals(order.indexOf("globex"), 4, `granted in order ${order.join(",")}`);
  } finally {
    await h.close();
  }
});

Deno.test("fair share by weight: with slots contested, a project of weight 3 gets three grants to another's one", async () => {
  const admission = new Admission({ timeoutMs: 5_000, batchSharePercent: 20 });
  let room = 0;
  const running = new Map<string, number>();
  const flow = (project: string, weight: number) => ({
    project,
    key: `${project}-key`,
    weight,
    admitted: () => ({ project: running.get(project) ?? 0, key: running.get(project) ?? 0 }),
  });
  const heavy = flow("heavy", 3);
  const light = flow("light", 1);
  const granted: string[] = [];
  const ask = (f: ReturnType<typeof flow>) => {
    // Admitted: counted until it ends (this test never ends one).
    running.set(f.project, (running.get(f.project) ?? 0) + 1);
    const take = () => room > 0 ? (room--, f.project) : undefined;
    return (admission.admit("m", "interactive", take, new AbortController().signal, f) as Promise<
      string
    >).then((who) => granted.push(who));
  };
  const waits = [
    ...Array.from({ length: 8 }, () => ask(heavy)),
    ...Array.from({ length: 8 }, () => ask(light)),
  ];
  room = 8;
  admission.wake("m");
  await Promise.all(waits.slice(0, 6).concat(waits.slice(8, 10)));
  assertEquals(granted.filter((g) => g === "heavy").length, 6);
  assertEquals(granted.filter((g) => g === "light").length, 2);
  room = 8;
  admission.wake("m");
  await Promise.all(waits);
});
