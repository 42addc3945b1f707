/**
 * /metrics after a known load: a real control plane, real sim engine, real HTTP. The counts on
 * the scrape are the requests sent, the tokens in the usage rows, the node's cards from its
 * heartbeat, the refusals by real limits; and no key id or prompt appears anywhere in it.
 */
import { assert, assertEquals, assertMatch } from "../../tests/assert.ts";
import { startTestControlPlane, type TestControlPlane } from "../../tests/helpers/control_plane.ts";
import { joinChannelNode, until } from "../../tests/helpers/channel_node.ts";
import { usage } from "../../db/schema.ts";

function sample(text: string, series: string): number | undefined {
  for (const line of text.split("\n")) {
    if (line.startsWith(series + " ")) return Number(line.slice(series.length + 1));
  }
  return undefined;
}

/** A new key with these limits of its own asks `times` times, and is refused each time. */
async function refusedBy(
  t: TestControlPlane,
  limits: Record<string, number>,
  times: number,
): Promise<void> {
  const made = await t.admin("keys", { method: "POST", body: JSON.stringify({ name: "limited" }) });
  assertEquals(made.status, 201);
  const { id, key } = await made.json() as { id: string; key: string };
  const set = await t.admin(`limits/key/${id}`, { method: "PATCH", body: JSON.stringify(limits) });
  assertEquals(set.status, 200, await set.text());
  for (let i = 0; i < times; i++) {
    const r = await t.chat({ model: "demo", messages: [{ role: "user", content: "x" }] }, {
      authorization: `Bearer ${key}`,
    });
    assertEquals(r.status, 429);
    await r.body?.cancel();
  }
}

Deno.test("metrics: a scrape after a known load finds the counts", async () => {
  const t = await startTestControlPlane();
  try {
    assert(t.cp.metricsUrl, "metrics listener started");
    const prompt = "a secret prompt that must never reach the metrics";
    for (let i = 0; i < 3; i++) {
      const r = await t.chat({ model: "demo", messages: [{ role: "user", content: prompt }] });
      assertEquals(r.status, 200);
      await r.body?.cancel();
    }
    for (let i = 0; i < 2; i++) {
      const r = await t.chat({
        model: "demo",
        stream: true,
        messages: [{ role: "user", content: "hi" }],
      });
      assertEquals(r.status, 200);
      await r.text();
    }
    const missing = await t.chat({ model: "nope", messages: [] });
    assertEquals(missing.status, 404);
    await missing.body?.cancel();
    // Refusals by real limits, each on its own key: one with no requests a minute (refused
    // twice), one with a day's budget of nothing (refused once).
    await refusedBy(t, { rpm: 0 }, 2);
    await refusedBy(t, { budget_day_micros: 0 }, 1);

    const node = await joinChannelNode(t.cp, t.caPem, "gpu-box");
    node.send({
      type: "heartbeat",
      host: {
        os: "linux",
        disks: [{ purpose: "weights", path: "/w", freeBytes: 5_000_000_000 }],
      },
      gpu: {
        source: "nvml",
        gpus: [{
          index: 0,
          uuid: "GPU-1",
          name: "Test Card",
          memoryTotalBytes: 24_000_000_000,
          memoryUsedBytes: 1_500_000_000,
          powerDrawW: 120,
          powerLimitW: 300,
          temperatureC: 55,
        }],
      },
      replicas: [],
    });
    await until(async () => {
      const v = await t.cp.deps.nodes!.hub.list();
      return v.some((n) => n.gpu !== undefined);
    });

    await t.cp.usage.flush();
    const rows = await t.cp.deps.store.db.select().from(usage);
    assertEquals(rows.length, 5);

    const res = await fetch(t.cp.metricsUrl!);
    assertEquals(res.status, 200);
    assertMatch(res.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
    const text = await res.text();

    const ok = 'llmgw_requests_total{model="demo",route="/chat/completions",status="200"}';
    assertEquals(sample(text, ok), 5);
    assertEquals(
      sample(text, 'llmgw_request_duration_seconds_count{model="demo",route="/chat/completions"}'),
      5,
    );
    assertEquals(sample(text, 'llmgw_time_to_first_token_seconds_count{model="demo"}'), 2);
    const promptSum = rows.reduce((s, r) => s + r.promptTokens, 0);
    const completionSum = rows.reduce((s, r) => s + r.completionTokens, 0);
    assert(promptSum > 0 && completionSum > 0);
    assertEquals(sample(text, 'llmgw_tokens_total{model="demo",direction="prompt"}'), promptSum);
    assertEquals(
      sample(text, 'llmgw_tokens_total{model="demo",direction="completion"}'),
      completionSum,
    );
    // Cached prompt tokens per replica, and the share: the same prompt sent three times is
    // mostly read from the engine's prompt cache the second and third time.
    const replica = rows[0]!.replicaId!;
    const cachedSum = rows.reduce((s, r) => s + (r.cachedTokens ?? 0), 0);
    assert(cachedSum > 0, "the repeated prompt was cached");
    const series = (kind: string) =>
      `llmgw_replica_prompt_tokens_total{model="demo",replica="${replica}",kind="${kind}"}`;
    assertEquals(sample(text, series("prompt")), promptSum);
    assertEquals(sample(text, series("cached")), cachedSum);
    assertEquals(
      sample(text, `llmgw_replica_cached_prompt_share{model="demo",replica="${replica}"}`),
      cachedSum / promptSum,
    );
    assertEquals(sample(text, 'llmgw_http_errors_total{code="model_not_found"}'), 1);
    assertEquals(
      sample(
        text,
        'llmgw_http_requests_total{method="POST",route="/v1/chat/completions",status="200"}',
      ),
      5,
    );
    assertEquals(sample(text, 'llmgw_limit_refusals_total{kind="budget",level="key"}'), 1);
    assertEquals(sample(text, 'llmgw_limit_refusals_total{kind="rate_limit",level="key"}'), 2);
    assertEquals(sample(text, 'llmgw_replicas{model="demo",state="ready"}'), 1);
    assertEquals(sample(text, 'llmgw_breakers{model="demo",state="closed"}'), 1);
    assertEquals(sample(text, 'llmgw_queue_length{model="demo"}'), 0);
    assertEquals(sample(text, "llmgw_agent_connections"), 1);
    // The process's own figures: memory, heap and CPU read at the scrape, not left at zero.
    const rss = sample(text, "process_resident_memory_bytes")!;
    const heap = sample(text, "llmgw_js_heap_used_bytes")!;
    assert(rss > 10_000_000 && heap > 1_000_000 && heap < rss, `rss ${rss}, heap ${heap}`);
    assert(sample(text, "process_cpu_seconds_total")! > 0);
    assert(sample(text, "process_open_fds")! > 3);
    const start = sample(text, "process_start_time_seconds")!;
    assert(Math.abs(start - Date.now() / 1000) < 600, `start ${start}`);
    assertEquals(sample(text, 'llmgw_nodes{state="ready"}'), 1);
    assertEquals(
      sample(text, 'llmgw_gpu_memory_used_bytes{node="gpu-box",gpu="0"}'),
      1_500_000_000,
    );
    assertEquals(sample(text, 'llmgw_gpu_power_limit_watts{node="gpu-box",gpu="0"}'), 300);
    assertEquals(sample(text, 'llmgw_gpu_temperature_celsius{node="gpu-box",gpu="0"}'), 55);
    // Not reported, so absent (never a made-up 0).
    assertEquals(sample(text, 'llmgw_gpu_utilization_percent{node="gpu-box",gpu="0"}'), undefined);
    assertEquals(
      sample(text, 'llmgw_node_disk_free_bytes{node="gpu-box",purpose="weights"}'),
      5_000_000_000,
    );
    assertEquals(sample(text, "llmgw_usage_pending_rows"), 0);
    for (const r of rows) assert(!text.includes(r.keyId!), "no key id in metrics");
    assert(!text.includes("secret prompt"));
    assert(!text.includes("sk-llmgw-"));
    // Every family has HELP and TYPE, names follow the conventions (`process_*` is the standard's).
    for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
      assertMatch(m[1]!, /^(llmgw|process)_[a-z0-9_]+$/);
      if (m[2] === "counter") assertMatch(m[1]!, /_total$/);
    }
    await node.close();
    await until(async () => {
      const scrape = await (await fetch(t.cp.metricsUrl!)).text();
      return sample(scrape, "llmgw_agent_connections") === 0;
    });
    assertEquals((await fetch(t.cp.metricsUrl!.replace("/metrics", "/other"))).status, 404);
  } finally {
    await t.close();
  }
});

Deno.test("metrics: a queue timeout counts as an admission refusal for its model", async () => {
  const t = await startTestControlPlane({ flags: { "router-queue-timeout-ms": "100" } });
  try {
    const r = t.cp.deps.replicas.get("local/demo")!;
    r.slots = 0;
    const res = await t.chat({ model: "demo", messages: [{ role: "user", content: "x" }] });
    assertEquals(res.status, 503);
    await res.body?.cancel();
    const text = await (await fetch(t.cp.metricsUrl!)).text();
    assertEquals(
      sample(text, 'llmgw_admission_refusals_total{model="demo",reason="queue_timeout"}'),
      1,
    );
  } finally {
    await t.close();
  }
});
