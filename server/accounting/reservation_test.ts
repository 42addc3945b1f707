/**
 * Budgets under concurrency: every admitted request holds its worst case until it settles, so a
 * burst of concurrent requests cannot spend past a budget, at the key or at a level shared by
 * several keys. Also the tokens-per-minute rules that go with it: a request that can never fit is
 * a 400, and a tokens 429 says `tokens`.
 */
import { assert, assertEquals, assertMatch } from "../../tests/assert.ts";
import { type Harness, startHarness } from "../../tests/helpers/harness.ts";
import { makeTenant, ok } from "../../tests/helpers/tenants.ts";
import { cost } from "./price.ts";

const chat = { model: "demo", max_tokens: 40, messages: [{ role: "user", content: "hi there" }] };
/** What admission holds for `chat`: its prompt estimate and its max_tokens. */
const promptEstimate = Math.ceil(JSON.stringify(chat.messages).length / 4);
const worstTokens = promptEstimate + chat.max_tokens;
// The harness's default price: 1,000 and 2,000 micro-units per 1,000 prompt and completion tokens.
const worstMicros = cost(
  { promptPer1k: 1000, completionPer1k: 2000, cachedPer1k: 0, cacheHitPer1k: 0 },
  promptEstimate,
  0,
  chat.max_tokens,
);

/** Sends `n` requests at once, spread over the keys; counts the answers by status. */
async function burst(h: Harness, keys: string[], n: number) {
  const results = await Promise.all(Array.from({ length: n }, async (_, i) => {
    const res = await h.v1("/chat/completions", chat, {
      headers: { authorization: `Bearer ${keys[i % keys.length]}` },
    });
    const body = await res.json();
    if (res.status === 429) assertEquals(body.error.code, "budget_exceeded");
    else assertEquals(res.status, 200, JSON.stringify(body));
    return res.status;
  }));
  return { admitted: results.filter((s) => s === 200).length };
}

async function unlimited(h: Harness) {
  await ok(h, { bearer: h.adminToken }, "PATCH", "/api/v1/limits/global/global", {
    rpm: 100_000,
    tpm: 100_000_000,
  });
}

Deno.test("30 concurrent requests on a money budget that fits 5: at most 5 admitted, spend within the budget", async () => {
  const h = await startHarness({ tokensPerSecond: 400 });
  try {
    const a = await makeTenant(h, "acme");
    await unlimited(h);
    const budget = worstMicros * 5;
    await ok(h, a.admin.cred, "PATCH", `/api/v1/limits/key/${a.member.keyId}`, {
      budget_day_micros: budget,
    });
    const { admitted } = await burst(h, [a.member.key], 30);
    const spent = h.people.budgets.spent({ kind: "key", id: a.member.keyId }, "day").micros;
    assert(admitted >= 1 && admitted <= 5, `admitted ${admitted}`);
    assert(spent <= budget, `spent ${spent} of ${budget}`);
  } finally {
    await h.close();
  }
});

Deno.test("30 concurrent requests on a token budget that fits 4: at most 4 admitted, tokens within the budget", async () => {
  const h = await startHarness({ tokensPerSecond: 400 });
  try {
    const a = await makeTenant(h, "acme");
    await unlimited(h);
    const budget = worstTokens * 4;
    await ok(h, a.admin.cred, "PATCH", `/api/v1/limits/key/${a.member.keyId}`, {
      budget_day_tokens: budget,
    });
    const { admitted } = await burst(h, [a.member.key], 30);
    const spent = h.people.budgets.spent({ kind: "key", id: a.member.keyId }, "day").tokens;
    assert(admitted >= 1 && admitted <= 4, `admitted ${admitted}`);
    assert(spent <= budget, `spent ${spent} tokens of ${budget}`);
  } finally {
    await h.close();
  }
});

Deno.test("a project budget shared by two keys holds against both keys' concurrent requests", async () => {
  const h = await startHarness({ tokensPerSecond: 400 });
  try {
    const a = await makeTenant(h, "acme");
    await unlimited(h);
    const other = await ok<{ key: string }>(h, a.admin.cred, "POST", "/api/v1/keys", {
      name: "svc",
      project_id: a.project.id,
      service: true,
    });
    const budget = worstMicros * 6;
    await ok(h, a.admin.cred, "PATCH", `/api/v1/limits/project/${a.project.id}`, {
      budget_day_micros: budget,
    });
    const { admitted } = await burst(h, [a.member.key, other.key], 30);
    const spent = h.people.budgets.spent({ kind: "project", id: a.project.id }, "day").micros;
    assert(admitted >= 1 && admitted <= 6, `admitted ${admitted}`);
    assert(spent <= budget, `spent ${spent} of ${budget}`);
    // What was held is given back when the requests end: room for one more is room for one more.
    await ok(h, a.admin.cred, "PATCH", `/api/v1/limits/project/${a.project.id}`, {
      budget_day_micros: spent + worstMicros,
    });
    const next = await h.v1("/chat/completions", chat, {
      headers: { authorization: `Bearer ${other.key}` },
    });
    assertEquals(next.status, 200, await next.text());
  } finally {
    await h.close();
  }
});

Deno.test("a refusal by a budget says what is spent, what is held and what the request needs, in the currency", async () => {
  const h = await startHarness({ tokensPerSecond: 400 });
  try {
    const a = await makeTenant(h, "acme");
    await unlimited(h);
    await ok(h, a.admin.cred, "PATCH", `/api/v1/limits/key/${a.member.keyId}`, {
      budget_day_micros: worstMicros - 1,
    });
    const res = await h.v1("/chat/completions", chat, {
      headers: { authorization: `Bearer ${a.member.key}` },
    });
    assertEquals(res.status, 429);
    assertMatch(
      (await res.json()).error.message,
      /daily budget of the key .* \(0\.000000 spent and 0\.000000 held for requests in flight, of 0\.\d{6} USD; this request may need 0\.\d{6}, less with a smaller max_tokens\)/,
    );
  } finally {
    await h.close();
  }
});

Deno.test("a max_tokens that can never fit the tokens per minute is a 400 saying what to send; a tokens 429 says tokens", async () => {
  const h = await startHarness({ tokensPerSecond: 20_000 });
  try {
    const a = await makeTenant(h, "acme");
    await ok(h, { bearer: h.adminToken }, "PATCH", `/api/v1/limits/key/${a.member.keyId}`, {
      tpm: 1000,
    });
    const key = { authorization: `Bearer ${a.member.key}` };
    const never = await h.v1("/chat/completions", { ...chat, max_tokens: 2000 }, { headers: key });
    assertEquals(never.status, 400);
    assertEquals(never.headers.get("retry-after"), null);
    const err = (await never.json()).error;
    assertEquals(err.code, "tokens_over_limit");
    assertEquals(err.param, "max_tokens");
    assertMatch(err.message, /tokens-per-minute limit of 1000 at the key .* level/);
    assertMatch(err.message, new RegExp(`max_tokens of at most ${1000 - promptEstimate}`));

    // Two that fit one at a time but not together: the second is a 429 about tokens.
    const long = { ...chat, max_tokens: 600, stream: true };
    const first = await h.v1("/chat/completions", long, { headers: key });
    assertEquals(first.status, 200);
    const second = await h.v1("/chat/completions", long, { headers: key });
    assertEquals(second.status, 429);
    const refused = (await second.json()).error;
    assertEquals(refused.code, "tokens_rate_limited");
    assertEquals(refused.type, "tokens");
    assertMatch(refused.message, /tokens per minute at the key .* level/);
    await first.body?.cancel();
  } finally {
    await h.close();
  }
});

Deno.test("a request that fails gives back what it held: the next one fits again", async () => {
  const h = await startHarness({ tokensPerSecond: 2000 });
  try {
    const a = await makeTenant(h, "acme");
    await unlimited(h);
    await ok(h, a.admin.cred, "PATCH", `/api/v1/limits/key/${a.member.keyId}`, {
      budget_day_micros: worstMicros,
    });
    const key = { authorization: `Bearer ${a.member.key}` };
    for (let i = 0; i < 3; i++) {
      // No replica for "cold": a 503, recorded at no cost, holding nothing afterwards.
      const failed = await h.v1("/chat/completions", { ...chat, model: "cold" }, { headers: key });
      assertEquals(failed.status, 503);
      await failed.body?.cancel();
    }
    // A client that leaves mid-stream: charged what was sent, the rest given back.
    const left = new AbortController();
    const cut = await h.v1("/chat/completions", { ...chat, max_tokens: 4, stream: true }, {
      headers: key,
      signal: left.signal,
    });
    left.abort();
    await cut.body?.cancel().catch(() => {});
    await new Promise((r) => setTimeout(r, 50));
    await ok(h, a.admin.cred, "PATCH", `/api/v1/limits/key/${a.member.keyId}`, {
      budget_day_micros: worstMicros + h.people.budgets.spent(
        { kind: "key", id: a.member.keyId },
        "day",
      ).micros,
    });
    const res = await h.v1("/chat/completions", chat, { headers: key });
    assertEquals(res.status, 200, await res.text());
  } finally {
    await h.close();
  }
});
