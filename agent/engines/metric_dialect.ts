/**
 * An engine's Prometheus page read as a load snapshot (core/protocol/load_snapshot.ts), through
 * the metric names its dialect uses.
 */
import type { LoadSnapshot } from "../../core/protocol/load_snapshot.ts";
import { parsePrometheus, type PromSample } from "./prometheus.ts";

/**
 * Which Prometheus names carry each field, first present name wins (engines renamed metrics across
 * versions). Several samples of one name (vLLM labels per model or per engine) are summed for counts
 * and rates and averaged for the cache ratio.
 */
export interface MetricDialect {
  readonly kvCacheUsage: readonly string[];
  readonly running: readonly string[];
  readonly waiting: readonly string[];
  readonly decodeTokensPerSecond: readonly string[];
  readonly promptTokensPerSecond: readonly string[];
}

export const llamacppDialect: MetricDialect = {
  kvCacheUsage: ["llamacpp:kv_cache_usage_ratio"],
  running: ["llamacpp:requests_processing"],
  waiting: ["llamacpp:requests_deferred"],
  decodeTokensPerSecond: ["llamacpp:predicted_tokens_seconds"],
  promptTokensPerSecond: ["llamacpp:prompt_tokens_seconds"],
};

/** vLLM publishes token counters, not rates; a rate would need two reads, so none is claimed. */
export const vllmDialect: MetricDialect = {
  kvCacheUsage: ["vllm:gpu_cache_usage_perc", "vllm:kv_cache_usage_perc"],
  running: ["vllm:num_requests_running"],
  waiting: ["vllm:num_requests_waiting"],
  decodeTokensPerSecond: [],
  promptTokensPerSecond: [],
};

/** Known only when at least one field was found; a page of unrelated metrics is not a reading. */
export function loadFromMetrics(
  text: string,
  dialect: MetricDialect,
  readAt: number,
): LoadSnapshot {
  const byName = new Map<string, PromSample[]>();
  for (const s of parsePrometheus(text)) {
    if (!Number.isFinite(s.value)) continue;
    const list = byName.get(s.name);
    if (list) list.push(s);
    else byName.set(s.name, [s]);
  }
  const pick = (names: readonly string[], how: "sum" | "mean"): number | undefined => {
    for (const name of names) {
      const list = byName.get(name);
      if (!list || list.length === 0) continue;
      const sum = list.reduce((a, s) => a + s.value, 0);
      return how === "sum" ? sum : sum / list.length;
    }
    return undefined;
  };
  const out: { -readonly [K in keyof LoadSnapshot]: LoadSnapshot[K] } = { known: false, readAt };
  const kv = pick(dialect.kvCacheUsage, "mean");
  if (kv !== undefined) out.kvCacheUsage = Math.min(1, Math.max(0, kv));
  const running = pick(dialect.running, "sum");
  if (running !== undefined) out.running = running;
  const waiting = pick(dialect.waiting, "sum");
  if (waiting !== undefined) out.waiting = waiting;
  const decode = pick(dialect.decodeTokensPerSecond, "sum");
  if (decode !== undefined) out.decodeTokensPerSecond = decode;
  const prompt = pick(dialect.promptTokensPerSecond, "sum");
  if (prompt !== undefined) out.promptTokensPerSecond = prompt;
  out.known = Object.keys(out).length > 2;
  return out;
}
