/** A refusal by a limit is counted in /metrics by kind and level; a spent budget raises a notification. */
import { assertEquals, assertMatch } from "../../tests/assert.ts";
import { startHarness } from "../../tests/helpers/harness.ts";
import { GatewayMetrics } from "../observe/gateway_metrics.ts";
import type { Notifier } from "../notify/notifier.ts";

Deno.test("limit refusals reach the metrics and a spent budget reaches the notifier", async () => {
  const metrics = new GatewayMetrics();
  const reached: string[] = [];
  const notifier = {
    budgetReached: (level: string, subject: string) => reached.push(`${level}:${subject}`),
  } as unknown as Notifier;
  const h = await startHarness({ app: { metrics, notifier } });
  const patch = (body: unknown) => h.admin("PATCH", "limits/global/global", body);
  const ask = () =>
    h.v1("/chat/completions", {
      model: "demo",
      messages: [{ role: "user", content: "hi" }],
      max_tokens: 2,
    });
  try {
    assertEquals((await patch({ rpm: 1 })).status, 200);
    assertEquals((await ask()).status, 200);
    const refused = await ask();
    assertEquals(refused.status, 429);
    await refused.body?.cancel();
    assertMatch(
      await metrics.render(),
      /llmgw_limit_refusals_total\{kind="rate_limit",level="global"\} 1/,
    );

    assertEquals((await patch({ rpm: 1000, budget_day_tokens: 1 })).status, 200);
    const spent = await ask();
    assertEquals(spent.status, 429);
    await spent.body?.cancel();
    assertEquals(reached.length, 1);
    assertMatch(reached[0]!, /^global:/);
  } finally {
    await h.close();
  }
});
