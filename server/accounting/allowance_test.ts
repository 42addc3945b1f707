import { assert, assertEquals, assertMatch } from "../../tests/assert.ts";
import { startHarness } from "../../tests/helpers/harness.ts";
import { call, makeTenant, ok } from "../../tests/helpers/tenants.ts";
import { eq, sum } from "drizzle-orm";
import { usage } from "../../db/schema.ts";

const chat = { model: "demo", max_tokens: 4, messages: [{ role: "user", content: "hi" }] };

Deno.test("limits narrow down the tree; partial updates keep the rest, --replace writes the set", async () => {
  const h = await startHarness();
  const root = { bearer: h.adminToken };
  try {
    const a = await makeTenant(h, "acme");
    await ok(h, root, "PATCH", "/api/v1/limits/global/global", { rpm: 1000, tpm: 1_000_000 });
    await ok(h, root, "PATCH", `/api/v1/limits/org/${a.org.id}`, {
      rpm: 5,
      models: ["de*", "cold"],
    });
    await ok(h, root, "PATCH", `/api/v1/limits/project/${a.project.id}`, {
      rpm: 100,
      models: ["demo"],
    });
    const eff = await ok<{ effective: { rpm: { value: number; scope: { kind: string } } } }>(
      h,
      root,
      "GET",
      `/api/v1/limits/key/${a.member.keyId}`,
    );
    assertEquals(eff.effective.rpm.value, 5);
    assertEquals(eff.effective.rpm.scope.kind, "org");

    // Partial: only tpm changes; rpm and models stay.
    const patched = await ok<{ limits: Record<string, unknown> }>(
      h,
      a.admin.cred,
      "PATCH",
      `/api/v1/limits/project/${a.project.id}`,
      { tpm: 500 },
    );
    assertEquals(patched.limits.rpm, 100);
    assertEquals(patched.limits.tpm, 500);
    assertEquals(patched.limits.models, ["demo"]);
    // Replace: what is not given is cleared back to inherited.
    const replaced = await ok<{ limits: Record<string, unknown> }>(
      h,
      a.admin.cred,
      "PUT",
      `/api/v1/limits/project/${a.project.id}`,
      { tpm: 600, models: ["demo"] },
    );
    assertEquals(replaced.limits.rpm, null);
    assertEquals(replaced.limits.tpm, 600);

    // Allowed models: the org allows de* and cold, the project only demo.
    const key = { authorization: `Bearer ${a.member.key}` };
    const models = await (await h.v1("/models", undefined, { headers: key })).json();
    assertEquals(models.data.map((m: { id: string }) => m.id), ["demo"]);
    const cold = await h.v1("/chat/completions", { ...chat, model: "cold" }, { headers: key });
    assertEquals(cold.status, 404);
    assertEquals((await cold.json()).error.code, "model_not_found");
  } finally {
    await h.close();
  }
});

Deno.test("a rate limit answers OpenAI's headers, then a 429 naming the limit, the level and the reset", async () => {
  const h = await startHarness();
  const root = { bearer: h.adminToken };
  try {
    const a = await makeTenant(h, "acme");
    await ok(h, root, "PATCH", `/api/v1/limits/team/${a.team.id}`, { rpm: 3, tpm: 100_000 });
    const key = { authorization: `Bearer ${a.member.key}` };
    for (let i = 0; i < 3; i++) {
      const res = await h.v1("/chat/completions", chat, { headers: key });
      assertEquals(res.status, 200);
      await res.text();
      assertEquals(res.headers.get("x-ratelimit-limit-requests"), "3");
      assertEquals(res.headers.get("x-ratelimit-remaining-requests"), String(2 - i));
      assertEquals(res.headers.get("x-ratelimit-limit-tokens"), "100000");
      assert(Number(res.headers.get("x-ratelimit-remaining-tokens")) < 100_000);
      assertMatch(res.headers.get("x-ratelimit-reset-requests")!, /^(\d+m)?[\d.]+m?s$/);
      assertMatch(res.headers.get("x-ratelimit-reset-tokens")!, /^(\d+m)?[\d.]+m?s$/);
    }
    const refused = await h.v1("/chat/completions", chat, { headers: key });
    assertEquals(refused.status, 429);
    const body = await refused.json();
    assertEquals(body.error.code, "rate_limited");
    assertEquals(body.error.type, "requests");
    assertMatch(
      body.error.message,
      /requests per minute at the team 'core' level \(3 of 3\)\. It resets in/,
    );
    assertEquals(refused.headers.get("x-ratelimit-remaining-requests"), "0");
    assert(Number(refused.headers.get("retry-after")) >= 1);
    // The limit binds on the team: another member's key in the same team is refused too.
    const other = await ok<{ key: string }>(h, a.admin.cred, "POST", "/api/v1/keys", {
      name: "svc",
      project_id: a.project.id,
      service: true,
    });
    assertEquals(
      (await h.v1("/chat/completions", chat, { headers: { authorization: `Bearer ${other.key}` } }))
        .status,
      429,
    );
    // A sliding window: two minutes on, it is open again.
    h.clock.advance(120_000);
    const again = await h.v1("/chat/completions", chat, { headers: key });
    assertEquals(again.status, 200);
    await again.text();
  } finally {
    await h.close();
  }
});

Deno.test("tokens per minute count the estimate on admission and are corrected by the usage", async () => {
  const h = await startHarness();
  const root = { bearer: h.adminToken };
  try {
    const a = await makeTenant(h, "acme");
    await ok(h, root, "PATCH", `/api/v1/limits/key/${a.member.keyId}`, { tpm: 1000 });
    const key = { authorization: `Bearer ${a.member.key}` };
    const big = await h.v1("/chat/completions", { ...chat, max_tokens: 2000 }, { headers: key });
    assertEquals(big.status, 400, "an estimate over the whole limit is refused before routing");
    assertMatch((await big.json()).error.message, /tokens-per-minute limit of 1000/);
    const res = await h.v1("/chat/completions", { ...chat, max_tokens: 900 }, { headers: key });
    assertEquals(res.status, 200);
    const answer = await res.json();
    const used = answer.usage.prompt_tokens + answer.usage.completion_tokens;
    // After the answer, the window holds what was used, not the estimate of 900-odd.
    const next = await h.v1("/chat/completions", chat, { headers: key });
    assertEquals(next.status, 200);
    await next.text();
    const left = Number(next.headers.get("x-ratelimit-remaining-tokens"));
    assert(left <= 1000 - used && left > 1000 - used - 50, `remaining ${left}, used ${used}`);
  } finally {
    await h.close();
  }
});

Deno.test("budget burst: 50 clients against 100 requests' worth never overshoot (each holds its worst case); rows add up to the counter", async () => {
  const h = await startHarness({ tokensPerSecond: 2000 });
  const root = { bearer: h.adminToken };
  try {
    const a = await makeTenant(h, "acme");
    await ok(h, root, "PATCH", "/api/v1/limits/global/global", { rpm: 100_000, tpm: 100_000_000 });
    const key = { authorization: `Bearer ${a.member.key}` };
    // One request to learn what a request costs at the default price.
    const probe = await h.v1("/chat/completions", chat, { headers: key });
    assertEquals(probe.status, 200);
    await probe.text();
    const project = { kind: "project" as const, id: a.project.id };
    const perRequest = h.people.budgets.spent(project, "day").micros;
    assert(perRequest > 0, "the default price makes a request cost something");
    const budget = perRequest * 101;
    await ok(h, a.admin.cred, "PATCH", `/api/v1/limits/project/${a.project.id}`, {
      budget_day_micros: budget,
    });

    let admitted = 0;
    let inFlight = 0;
    let inFlightWhenSpent = -1;
    const client = async () => {
      while (true) {
        inFlight++;
        const res = await h.v1("/chat/completions", chat, { headers: key });
        inFlight--;
        if (res.status === 429) {
          const body = await res.json();
          assertEquals(body.error.code, "budget_exceeded");
          assertEquals(body.error.type, "insufficient_quota");
          assertMatch(body.error.message, /daily budget of the project 'app' level/);
          if (inFlightWhenSpent < 0) inFlightWhenSpent = inFlight;
          return;
        }
        assertEquals(res.status, 200);
        await res.text();
        admitted++;
      }
    };
    await Promise.all(Array.from({ length: 50 }, client));
    const spent = h.people.budgets.spent(project, "day").micros;
    assert(admitted >= 100, `admitted ${admitted}`);
    const overshoot = spent - budget;
    console.log(
      `burst: admitted ${admitted}, per request ${perRequest}, budget ${budget}, spent ${spent}, overshoot ${overshoot} (${
        overshoot / perRequest
      } requests)`,
    );
    assert(overshoot <= 0, `overshoot ${overshoot}: requests in flight spent past the budget`);
    assert(overshoot > -2 * perRequest, "the budget was used up, all but what one more needs");
    // The usage rows add up to the counter exactly.
    await h.usage.flush();
    const [row] = await h.store.db.select({ total: sum(usage.costMicros) }).from(usage)
      .where(eq(usage.keyId, a.member.keyId));
    assertEquals(Number(row!.total), spent);
    // And the counter survives a restart: persisted, then restored (only ever raised).
    await h.people.budgets.flush();
    const { BudgetBook } = await import("./budgets.ts");
    const fresh = new BudgetBook({ store: h.store, clock: h.clock, logger: h.deps.logger });
    await fresh.catchUp(h.people.tenancy);
    assertEquals(fresh.spent(project, "day").micros, spent);
    assertEquals(fresh.spent({ kind: "team", id: a.team.id }, "month").micros, spent);
  } finally {
    await h.close();
  }
});

Deno.test("a refusal by a key's budget does not touch another project's", async () => {
  const h = await startHarness();
  try {
    const a = await makeTenant(h, "acme");
    // Room for one request's worst case: its prompt estimate and its max_tokens.
    const oneRequest = Math.ceil(JSON.stringify(chat.messages).length / 4) + chat.max_tokens;
    await ok(h, { bearer: h.adminToken }, "PATCH", `/api/v1/limits/key/${a.member.keyId}`, {
      budget_month_tokens: oneRequest,
    });
    const key = { authorization: `Bearer ${a.member.key}` };
    const first = await h.v1("/chat/completions", chat, { headers: key });
    assertEquals(first.status, 200);
    await first.text();
    const second = await h.v1("/chat/completions", chat, { headers: key });
    assertEquals(second.status, 429);
    assertMatch((await second.json()).error.message, /monthly budget of the key .* tokens/);
    const b = await makeTenant(h, "globex");
    const res = await call(h, {}, "GET", "/v1/models");
    assertEquals(res.status, 401);
    const theirs = await h.v1("/chat/completions", chat, {
      headers: { authorization: `Bearer ${b.member.key}` },
    });
    assertEquals(theirs.status, 200);
    await theirs.text();
  } finally {
    await h.close();
  }
});

Deno.test("max_parallel caps a level's requests in flight per model: one more is a 429 until one ends", async () => {
  const h = await startHarness({ tokensPerSecond: 100 });
  try {
    const a = await makeTenant(h, "acme");
    await ok(h, { bearer: h.adminToken }, "PATCH", `/api/v1/limits/project/${a.project.id}`, {
      max_parallel: 2,
      rpm: 1000,
      tpm: 1_000_000,
    });
    const key = { authorization: `Bearer ${a.member.key}` };
    const long = { ...chat, max_tokens: 30, stream: true };
    const first = await h.v1("/chat/completions", long, { headers: key });
    const second = await h.v1("/chat/completions", long, { headers: key });
    assertEquals([first.status, second.status], [200, 200]);
    const third = await h.v1("/chat/completions", long, { headers: key });
    assertEquals(third.status, 429);
    assertEquals(third.headers.get("retry-after"), "1");
    const err = (await third.json()).error;
    assertEquals(err.code, "parallel_limited");
    assertMatch(err.message, /2 at a time to 'demo' at the project 'app' level \(2 running\)/);
    // Another model is not counted against this one.
    const other = await h.v1("/chat/completions", { ...chat, model: "cold" }, { headers: key });
    assert(other.status !== 429, `cold: ${other.status}`);
    await other.body?.cancel();
    // The project's weight in a busy model's queue is a limit too.
    // Set by an administrator only: it takes share from other tenants.
    await ok(
      h,
      a.admin.cred,
      "PATCH",
      `/api/v1/limits/project/${a.project.id}`,
      { weight: 3 },
      403,
    );
    await ok(h, { bearer: h.adminToken }, "PATCH", `/api/v1/limits/project/${a.project.id}`, {
      weight: 3,
    });
    const flow = h.people.admission.flow(
      { id: a.member.keyId, projectId: a.project.id } as Parameters<
        typeof h.people.admission.flow
      >[0],
      "demo",
    );
    assertEquals([flow.weight, flow.admitted().project, flow.admitted().key], [3, 2, 2]);
    await first.text();
    const after = await h.v1("/chat/completions", chat, { headers: key });
    assertEquals(after.status, 200);
    await after.text();
    await second.text();
  } finally {
    await h.close();
  }
});
