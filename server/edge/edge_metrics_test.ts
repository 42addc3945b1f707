/** What the edge does is counted on /metrics: connections cut by a timeout, refused by the cap, open. */
import { assert, assertMatch } from "../../tests/assert.ts";
import { startTestControlPlane } from "../../tests/helpers/control_plane.ts";
import { RawClient } from "../../tests/helpers/raw_http.ts";

Deno.test("edge metrics: idle cuts, refusals over the per-address cap, and open connections", async () => {
  const t = await startTestControlPlane({
    flags: { "listener-idle-timeout-ms": "300", "listener-max-connections-per-address": "1" },
  });
  const port = Number(new URL(t.cp.url).port);
  try {
    const first = await RawClient.connectFrom(port, "127.0.0.6");
    const second = await RawClient.connectFrom(port, "127.0.0.6");
    assert(await second.closedWithin(1_000), "the second connection from 127.0.0.6 was let in");
    assert(await first.closedWithin(3_000), "the idle one was not cut");
    const text = await (await fetch(t.cp.metricsUrl!)).text();
    assertMatch(text, /^llmgw_connections_refused_total\{reason="per_address"\} [1-9]/m);
    assertMatch(text, /^llmgw_connections_cut_total\{reason="idle_timeout"\} [1-9]/m);
    assertMatch(text, /^llmgw_connections_open \d+/m);
  } finally {
    await t.close();
  }
});
