import { deepStrictEqual as assertEquals } from "node:assert/strict";
import { llamacppDialect, loadFromMetrics, vllmDialect } from "./metric_dialect.ts";
import { parsePrometheus } from "./prometheus.ts";

Deno.test("prometheus text is read into names, labels and values, skipping comments and junk", () => {
  const text = [
    "# HELP x_total A counter.",
    "# TYPE x_total counter",
    "x_total 3",
    'vllm:num_requests_running{engine="0",model_name="a \\"b\\""} 2 1700000000000',
    "not a metric line at all {",
    "up NaN",
    "inf_metric +Inf",
    "",
  ].join("\n");
  const samples = parsePrometheus(text);
  assertEquals(samples.length, 4);
  assertEquals(samples[0], { name: "x_total", labels: {}, value: 3 });
  assertEquals(samples[1], {
    name: "vllm:num_requests_running",
    labels: { engine: "0", model_name: 'a "b"' },
    value: 2,
  });
  assertEquals(Number.isNaN(samples[2]?.value), true);
  assertEquals(samples[3]?.value, Infinity);
});

Deno.test("llama.cpp's metrics become one known load snapshot", () => {
  const text = [
    "llamacpp:kv_cache_usage_ratio 0.5",
    "llamacpp:requests_processing 3",
    "llamacpp:requests_deferred 7",
    "llamacpp:predicted_tokens_seconds 55.5",
    "llamacpp:prompt_tokens_seconds 900",
  ].join("\n");
  assertEquals(loadFromMetrics(text, llamacppDialect, 123), {
    known: true,
    kvCacheUsage: 0.5,
    running: 3,
    waiting: 7,
    decodeTokensPerSecond: 55.5,
    promptTokensPerSecond: 900,
    readAt: 123,
  });
});

Deno.test("vLLM's metrics are summed across engines and the cache ratio is averaged", () => {
  const text = [
    'vllm:gpu_cache_usage_perc{engine="0",model_name="m"} 0.2',
    'vllm:gpu_cache_usage_perc{engine="1",model_name="m"} 0.6',
    'vllm:num_requests_running{engine="0",model_name="m"} 1',
    'vllm:num_requests_running{engine="1",model_name="m"} 2',
    'vllm:num_requests_waiting{model_name="m"} 4',
  ].join("\n");
  const load = loadFromMetrics(text, vllmDialect, 1);
  assertEquals(load.known, true);
  assertEquals(Math.round((load.kvCacheUsage ?? 0) * 100), 40);
  assertEquals(load.running, 3);
  assertEquals(load.waiting, 4);
  assertEquals("decodeTokensPerSecond" in load, false);
});

Deno.test("vLLM's newer kv_cache_usage_perc name is read when the old one is absent", () => {
  const load = loadFromMetrics('vllm:kv_cache_usage_perc{engine="0"} 1.5', vllmDialect, 1);
  // A ratio above 1 is clamped: the router compares it with other replicas' 0..1.
  assertEquals(load, { known: true, kvCacheUsage: 1, readAt: 1 });
});

Deno.test("a page without the dialect's names is unknown load, not zero load", () => {
  assertEquals(loadFromMetrics("process_cpu_seconds_total 4\n", llamacppDialect, 9), {
    known: false,
    readAt: 9,
  });
  assertEquals(loadFromMetrics("<html>oops</html>", vllmDialect, 9).known, false);
});
