/**
 * Budgets across control planes: three real apps on one SQLite store file, budgets leased to each
 * in slices. A key's daily token budget fits twenty requests; requests go to all three at once.
 * Without slices each control plane would let the key spend the whole budget.
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import type { Harness } from "../../tests/helpers/harness.ts";
import { startPlanes } from "../../tests/helpers/shared_store.ts";

const chat = { model: "demo", max_tokens: 40, messages: [{ role: "user", content: "hi there" }] };
/** What admission holds for `chat`: its prompt estimate and its max_tokens. */
const worstTokens = Math.ceil(JSON.stringify(chat.messages).length / 4) + chat.max_tokens;
const fits = 20;

async function ask(plane: Harness, key: string): Promise<{ status: number; tokens: number }> {
  const res = await plane.v1("/chat/completions", chat, {
    headers: { authorization: `Bearer ${key}` },
  });
  const body = await res.json();
  if (res.status === 429) assertEquals(body.error.code, "budget_exceeded");
  else assertEquals(res.status, 200, JSON.stringify(body));
  return { status: res.status, tokens: body.usage?.total_tokens ?? 0 };
}

Deno.test("a daily token budget shared by three control planes is spent once, not once per control plane", async () => {
  const { planes, close } = await startPlanes(3, {
    tokensPerSecond: 2000,
    rateExchangeMs: 2_000,
    setUp: async (first) => {
      const set = await first.admin("PATCH", "limits/global/global", {
        rpm: 100_000,
        tpm: 100_000_000,
        budget_day_tokens: worstTokens * fits,
      });
      assertEquals(set.status, 200, await set.text());
    },
  });
  try {
    const key = planes[0]!.key;
    let answered = 0;
    let tokens = 0;
    // Three at a time, one on each control plane, until every one of them refuses.
    for (let round = 0; round < 3 * fits; round++) {
      const results = await Promise.all(planes.map((p) => ask(p, key)));
      for (const r of results) if (r.status === 200) answered++, tokens += r.tokens;
      if (results.every((r) => r.status === 429)) break;
    }
    const budget = worstTokens * fits;
    assert(tokens <= budget, `spent ${tokens} tokens of ${budget} over three control planes`);
    // What may be left unspent: less than one request's reservation in each control plane's slice.
    assert(tokens > budget - 3 * worstTokens, `spent only ${tokens} tokens of ${budget}`);
    assert(answered >= fits - 3, `answered ${answered}`);
  } finally {
    await close();
  }
});
