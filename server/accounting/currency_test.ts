/** Money always says which: `accounting.currency` in the prices, limits, usage sums, refusals. */
import { assertEquals, assertMatch, assertRejects } from "../../tests/assert.ts";
import { startTestControlPlane } from "../../tests/helpers/control_plane.ts";
import { loadServerConfig } from "../wiring/config.ts";
import { renderUsage } from "../cli/ctl/usage.ts";
import { Fmt } from "../portal/i18n.ts";

Deno.test("the currency setting is shown with prices, budgets, usage sums and a budget refusal", async () => {
  const t = await startTestControlPlane({ flags: { "accounting-currency": "EUR" } });
  try {
    const get = async (path: string) => await (await t.admin(path)).json();
    assertEquals((await get("prices")).currency, "EUR");
    assertEquals((await get("limits/global/global")).currency, "EUR");
    const summary = await get("usage/summary");
    assertEquals(summary.currency, "EUR");
    assertMatch(renderUsage(summary, "table"), /cost_EUR/);
    const patch = await t.admin("limits/global/global", {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ budget_day_micros: 1 }),
    });
    assertEquals(patch.status, 200);
    const refused = await t.chat({
      model: "demo",
      max_tokens: 4,
      messages: [{ role: "user", content: "hi" }],
    });
    assertEquals(refused.status, 429);
    assertMatch((await refused.json()).error.message, /of 0\.000001 EUR/);
  } finally {
    await t.close();
  }
});

Deno.test("the currency is an ISO 4217 code; the portal writes sums in it", async () => {
  await assertRejects(
    () =>
      loadServerConfig({ flags: { data: "/nonexistent", "accounting-currency": "euro" }, env: {} }),
    Error,
    "expected an ISO 4217 code",
  );
  assertEquals(new Fmt("en", "UTC", "EUR").money(1_500_000), "€1.50");
  assertEquals(new Fmt("en", "UTC").money(250_000), "$0.25");
});
