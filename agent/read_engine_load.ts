/**
 * One read of an engine's Prometheus endpoint, mapped through its dialect. Time-boxed (1 s) and
 * size-bounded (256 KiB): a wedged or chatty engine must not stall the agent's heartbeat. Anything
 * that goes wrong is unknown load, never an error and never zero.
 */
import { boundedGet } from "./bounded_get.ts";
import type { EngineAdapter } from "./engines/engine_adapter.ts";
import { loadFromMetrics } from "./engines/metric_dialect.ts";
import { type LoadSnapshot, unknownLoad } from "../core/protocol/load_snapshot.ts";

export async function readEngineLoad(
  fetchFn: typeof fetch,
  baseUrl: string,
  adapter: EngineAdapter,
  apiKey: string,
  readAt: number,
): Promise<LoadSnapshot> {
  try {
    const res = await boundedGet(fetchFn, baseUrl + adapter.metricsPath, {
      apiKey,
      timeoutMs: 1_000,
      maxBytes: 256 * 1024,
    });
    // A cut page could be missing the very gauges that matter; better unknown than wrong.
    if (!res || res.status !== 200 || res.truncated) return unknownLoad(readAt);
    return loadFromMetrics(res.body, adapter.dialect, readAt);
  } catch {
    return unknownLoad(readAt);
  }
}
