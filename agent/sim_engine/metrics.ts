/** Prometheus text for /metrics, with llama-server's metric names, help texts and types. */
import type { EngineCounters, SlotPool } from "./slots.ts";

type Kind = "counter" | "gauge";

export function renderMetrics(counters: EngineCounters, pool: SlotPool): string {
  const b = counters.bucket;
  const perSecond = (tokens: number, ms: number) => (ms > 0 ? (tokens * 1000) / ms : 0);
  const rows: Array<[Kind, string, string, number]> = [
    ["counter", "prompt_tokens_total", "Number of prompt tokens processed.", counters.promptTokens],
    ["counter", "prompt_seconds_total", "Prompt process time", counters.promptMs / 1000],
    [
      "counter",
      "tokens_predicted_total",
      "Number of generation tokens processed.",
      counters.predictedTokens,
    ],
    [
      "counter",
      "tokens_predicted_seconds_total",
      "Predict process time",
      counters.predictedMs / 1000,
    ],
    ["counter", "n_decode_total", "Total number of llama_decode() calls", counters.decodeCalls],
    [
      "gauge",
      "n_busy_slots_per_decode",
      "Average number of busy slots per llama_decode() call",
      counters.decodeCalls > 0 ? counters.busySlotsSum / counters.decodeCalls : 0,
    ],
    [
      "gauge",
      "prompt_tokens_seconds",
      "Average prompt throughput in tokens/s.",
      perSecond(b.promptTokens, b.promptMs),
    ],
    [
      "gauge",
      "predicted_tokens_seconds",
      "Average generation throughput in tokens/s.",
      perSecond(b.predictedTokens, b.predictedMs),
    ],
    [
      "gauge",
      "kv_cache_usage_ratio",
      "KV-cache usage. 1 = 100 percent usage.",
      pool.kvTokens / (pool.nCtx * pool.slots.length),
    ],
    ["gauge", "kv_cache_tokens", "KV-cache tokens.", pool.kvTokens],
    ["gauge", "requests_processing", "Number of requests processing.", pool.processing],
    ["gauge", "requests_deferred", "Number of requests deferred.", pool.deferred],
  ];
  // Like llama-server, reading the metrics starts a new averaging interval.
  counters.resetBucket();
  const lines = rows.flatMap(([kind, name, help, value]) => [
    `# HELP llamacpp:${name} ${help}`,
    `# TYPE llamacpp:${name} ${kind}`,
    `llamacpp:${name} ${value}`,
  ]);
  // Not in llama-server; kept out of its namespace so nobody mistakes them for real ones.
  lines.push(
    "# HELP llmgw_sim_requests_total Generation requests received.",
    "# TYPE llmgw_sim_requests_total counter",
    `llmgw_sim_requests_total ${counters.requests}`,
    "# HELP llmgw_sim_requests_cancelled_total Generation requests abandoned by their client.",
    "# TYPE llmgw_sim_requests_cancelled_total counter",
    `llmgw_sim_requests_cancelled_total ${counters.cancelled}`,
  );
  return lines.join("\n") + "\n";
}
