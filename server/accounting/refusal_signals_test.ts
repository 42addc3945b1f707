/** A refusal by a limit is counted in /metrics by kind and level; a spent budget raises a notification. */
import { assertEquals, assertMatch } from "../../tests/assert.ts";
import { startHarness } from "../../tests/helpers/harness.ts";
import { GatewayMetrics } from "../observe/gateway_metrics.ts";
import { Notifier } from "../notify/notifier.ts";
import type { NotificationEvent } from "../notify/webhook_sender.ts";
import { silentLogger } from "../../core/log.ts";
import { FakeClock } from "../../core/clock.ts";

Deno.test("limit refusals reach the metrics and a spent budget reaches the notifier", async () => {
  const metrics = new GatewayMetrics();
  const clock = new FakeClock();
  // The real notifier; only its outer edge, where the webhook sender would take over, records.
  const sent: NotificationEvent[] = [];
  const notifier = new Notifier({
    send: (e) => sent.push(e),
    clock,
    logger: silentLogger,
    quietMs: 60_000,
    diskLowBytes: 1,
  });
  const h = await startHarness({ clock, app: { metrics, notifier } });
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
    for (let i = 0; i < 2; i++) {
      const spent = await ask();
      assertEquals(spent.status, 429);
      await spent.body?.cancel();
    }
    // Two refusals, one episode: one message, firing, about the global level.
    assertEquals(sent.map((e) => [e.event, e.state]), [["budget_reached", "firing"]]);
    assertMatch(sent[0]!.subject, /^global:/);
  } finally {
    notifier.close();
    await h.close();
  }
});
