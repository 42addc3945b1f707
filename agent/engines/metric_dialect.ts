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
  /**
   * Requests in flight as counters: started minus finished (the sum of each list's samples),
   * for an engine that publishes no running gauge (text-embeddings-inference). Read only when
   * no `running` name is present.
   */
  readonly inFlight?: { readonly started: readonly string[]; readonly finished: readonly string[] };
  /**
   * A label whose samples are the same reading repeated (SGLang publishes its scheduler's gauges
   * once per tensor-parallel rank): only samples where it has this value, or is absent, count.
   */
  readonly onlyWhere?: { readonly label: string; readonly value: string };
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

/**
 * SGLang's scheduler gauges (docs.sglang.io, production metrics; `--enable-metrics`):
 * `token_usage` is the share of its KV pool in use, `gen_throughput` its decode rate.
 */
export const sglangDialect: MetricDialect = {
  kvCacheUsage: ["sglang:token_usage"],
  running: ["sglang:num_running_reqs"],
  waiting: ["sglang:num_queue_reqs"],
  decodeTokensPerSecond: ["sglang:gen_throughput"],
  promptTokensPerSecond: [],
  onlyWhere: { label: "tp_rank", value: "0" },
};

/**
 * trtllm-serve's Prometheus page (`/prometheus/metrics`; its `/metrics` is JSON iteration
 * stats): the gauges it fills from those stats.
 */
export const trtllmDialect: MetricDialect = {
  kvCacheUsage: ["trtllm_kv_cache_utilization"],
  running: ["trtllm_num_requests_running"],
  waiting: ["trtllm_num_requests_waiting"],
  decodeTokensPerSecond: [],
  promptTokensPerSecond: [],
};

/**
 * text-embeddings-inference: `te_queue_size` is what waits for a batch; in flight is its request
 * counters' difference. An encoder keeps no KV cache, so none is claimed. Its page is empty until
 * the first request: an idle, never-used TEI reads as unknown load.
 */
export const teiDialect: MetricDialect = {
  kvCacheUsage: [],
  running: [],
  waiting: ["te_queue_size"],
  decodeTokensPerSecond: [],
  promptTokensPerSecond: [],
  inFlight: {
    started: ["te_request_count"],
    finished: ["te_request_success", "te_request_failure"],
  },
};

/** Known only when at least one field was found; a page of unrelated metrics is not a reading. */
export function loadFromMetrics(
  text: string,
  dialect: MetricDialect,
  readAt: number,
): LoadSnapshot {
  const byName = new Map<string, PromSample[]>();
  const only = dialect.onlyWhere;
  for (const s of parsePrometheus(text)) {
    if (!Number.isFinite(s.value)) continue;
    if (only && s.labels[only.label] !== undefined && s.labels[only.label] !== only.value) continue;
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
  const running = pick(dialect.running, "sum") ?? inFlight(dialect, byName);
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

/** Started minus finished, when the engine publishes the started counter at all. */
function inFlight(
  dialect: MetricDialect,
  byName: ReadonlyMap<string, readonly PromSample[]>,
): number | undefined {
  if (!dialect.inFlight) return undefined;
  const total = (names: readonly string[]) =>
    names.flatMap((n) => byName.get(n) ?? []).reduce((a, s) => a + s.value, 0);
  if (!dialect.inFlight.started.some((n) => byName.has(n))) return undefined;
  return Math.max(0, total(dialect.inFlight.started) - total(dialect.inFlight.finished));
}
