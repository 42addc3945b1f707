/**
 * docs/people-and-money.md's budgets, through the front door on the harness's FakeClock: a monthly money budget
 * refuses once what was spent reaches it, with a 429 `budget_exceeded` that names the period, the
 * level and when it resets (the 1st of next month, UTC; Retry-After counts down to it); at the
 * month's start the same key is served again. A daily token budget says its reset the same way.
 */
import { assertEquals, assertMatch } from "../../tests/assert.ts";
import { type Harness, startHarness } from "../../tests/helpers/harness.ts";
import { dialectTest } from "../../tests/helpers/stores.ts";
import { call, ok } from "../../tests/helpers/tenants.ts";
import { chat, usageRows } from "../../tests/helpers/routing.ts";

/** A new key of its own, so the limits set on it bind it alone. */
async function newKey(h: Harness): Promise<{ id: string; key: string }> {
  return await ok(h, { bearer: h.adminToken }, "POST", "/api/v1/keys", { name: "budgeted" });
}

const setLimits = (h: Harness, keyId: string, limits: Record<string, number>) =>
  ok(h, { bearer: h.adminToken }, "PATCH", `/api/v1/limits/key/${keyId}`, limits);

const ask = (h: Harness, key: string) =>
  call(h, { bearer: key }, "POST", "/v1/chat/completions", chat("hi", { max_tokens: 3 }));

/** Moves the harness's clock to `iso` (it only moves forward). */
function setTime(h: Harness, iso: string): void {
  const to = Date.parse(iso);
  if (to < h.clock.now()) throw new Error(`the clock is already past ${iso}`);
  h.clock.advance(to - h.clock.now());
}

dialectTest(
  "a monthly money budget refuses once spent, says when it resets, and resets on the 1st",
  async (dialect) => {
    const h = await startHarness({ dialect });
    try {
      setTime(h, "2026-03-31T22:00:00.000Z");
      const { id, key } = await newKey(h);
      const first = await ask(h, key);
      assertEquals(first.status, 200, await first.clone().text());
      await first.body?.cancel();
      const [row] = await usageRows(h);
      const cost = row!.costMicros;
      assertEquals(cost > 0, true, "the default price makes the request cost something");

      // What was spent reaches the budget exactly: the next request is refused.
      await setLimits(h, id, { budget_month_micros: cost });
      const refused = await ask(h, key);
      assertEquals(refused.status, 429);
      const body = await refused.json();
      assertEquals(body.error.code, "budget_exceeded");
      assertMatch(body.error.message, new RegExp(`monthly budget of the key '${id}' level`));
      // Money is shown in the currency's units; what is held for requests in flight counts too.
      const money = (cost / 1e6).toFixed(6).replace(".", "\\.");
      assertMatch(
        body.error.message,
        new RegExp(
          `\\(${money} spent and 0\\.000000 held for requests in flight, of ${money} USD;`,
        ),
      );
      assertMatch(body.error.message, /resets at 2026-04-01T00:00:00\.000Z/);
      assertEquals(refused.headers.get("retry-after"), String(2 * 3600));

      // With room for another request's worst case it is served again; once that is spent too,
      // refused again (the budget holds each request's worst case, so "room" is more than a unit).
      await setLimits(h, id, { budget_month_micros: cost * 10 });
      const below = await ask(h, key);
      assertEquals(below.status, 200);
      await below.body?.cancel();
      const spent = (await usageRows(h)).reduce((n, r) => n + r.costMicros, 0);
      await setLimits(h, id, { budget_month_micros: spent });
      const over = await ask(h, key);
      assertEquals(over.status, 429);
      await over.body?.cancel();

      // Still March, a minute before midnight: refused; at the month's start: served.
      setTime(h, "2026-03-31T23:59:00.000Z");
      const late = await ask(h, key);
      assertEquals([late.status, late.headers.get("retry-after")], [429, "60"]);
      await late.body?.cancel();
      setTime(h, "2026-04-01T00:00:00.000Z");
      const april = await ask(h, key);
      assertEquals(april.status, 200, await april.clone().text());
      await april.body?.cancel();
    } finally {
      await h.close();
    }
  },
);

dialectTest(
  "a daily token budget's refusal names the next UTC midnight as its reset",
  async (dialect) => {
    const h = await startHarness({ dialect });
    try {
      setTime(h, "2026-06-15T18:30:00.000Z");
      const { id, key } = await newKey(h);
      const first = await ask(h, key);
      assertEquals(first.status, 200);
      await first.body?.cancel();
      const [row] = await usageRows(h);
      const used = row!.promptTokens + row!.completionTokens;
      await setLimits(h, id, { budget_day_tokens: used });
      const refused = await ask(h, key);
      assertEquals(refused.status, 429);
      const { error } = await refused.json();
      assertEquals(error.code, "budget_exceeded");
      assertMatch(
        error.message,
        new RegExp(
          `daily budget of the key '${id}' level \\(${used} spent and 0 held .*, of ${used} tokens;`,
        ),
      );
      assertMatch(error.message, /It resets at 2026-06-16T00:00:00\.000Z$/);
      assertEquals(refused.headers.get("retry-after"), String(5.5 * 3600));
      setTime(h, "2026-06-16T00:00:00.000Z");
      const next = await ask(h, key);
      assertEquals(next.status, 200);
      await next.body?.cancel();
    } finally {
      await h.close();
    }
  },
);
