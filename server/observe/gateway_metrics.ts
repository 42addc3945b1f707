/**
 * The gateway's metrics: what is counted on the request path (from each usage row and each
 * HTTP answer), and what is read from live state at each scrape (replicas, breakers, queues,
 * nodes and their cards, the usage writer). Label values come only from bounded sets: catalog
 * model names, route patterns, HTTP statuses, error codes, replica and breaker states, node names
 * and card indexes. Never a key id, a prompt or a client-chosen string.
 */
import { replicasWanted } from "../models/catalog_row.ts";
import { Registry } from "../../core/metrics/registry.ts";
import { VERSION } from "../../core/version.ts";
import { registerProcessMetrics } from "./process_metrics.ts";
import { RecentSamples } from "./recent_samples.ts";
import type { UsageRow } from "../usage/recorder.ts";
import type { ReplicaTable } from "../router/replicas.ts";
import type { Routing } from "../router/routing.ts";
import type { ModelCatalog } from "../router/catalog.ts";
import type { NodeHub } from "../nodes/node_hub.ts";
import type { EdgeCounters } from "../edge/edge_listener.ts";
import type { AnswerCache } from "../cache/answer_cache.ts";

/** Seconds: from 5 ms to 5 minutes, the span between an embedding and a long generation. */
const latencyBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const ttftBuckets = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30];
const queueBuckets = [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** What a refusal by a limit is for: a rate limit or a spending budget. */
export type RefusalKind = "rate_limit" | "budget";
/** Where the limit is set. A closed list, so the label stays bounded. */
export type RefusalLevel = "key" | "user" | "project" | "team" | "org" | "model" | "global";

/** What the scrape reads from; each part is optional (a test may have no nodes). */
export interface MetricSources {
  replicas?: ReplicaTable;
  routing?: Routing;
  catalog?: ModelCatalog;
  nodes?: () => NodeHub | undefined;
  usageWriter?: () => { pending: number; oldestPendingMs: number | null; dropped: number };
  answerCache?: AnswerCache;
}

export class GatewayMetrics {
  readonly registry = new Registry();
  /** The last hour per card and per model, for the portal's charts. */
  readonly recent = new RecentSamples();
  readonly requests = this.registry.counter(
    "llmgw_requests_total",
    "Inference requests answered, by model asked for, route and HTTP status",
    ["model", "route", "status"],
  );
  readonly duration = this.registry.histogram(
    "llmgw_request_duration_seconds",
    "Inference request duration from arrival to the last byte, queue included",
    ["model", "route"],
    latencyBuckets,
  );
  readonly ttft = this.registry.histogram(
    "llmgw_time_to_first_token_seconds",
    "Time from a streamed request's arrival to its first byte, queue included",
    ["model"],
    ttftBuckets,
  );
  readonly tokens = this.registry.counter(
    "llmgw_tokens_total",
    "Tokens by direction: prompt (all prompt tokens), cached (the part of prompt read from the engine's cache), completion",
    ["model", "direction"],
  );
  readonly replicaPrompt = this.registry.counter(
    "llmgw_replica_prompt_tokens_total",
    "Prompt tokens by model and replica: all of them (kind prompt), and those read from the engine's prompt cache (kind cached)",
    ["model", "replica", "kind"],
  );
  readonly replicaCachedShare = this.registry.gauge(
    "llmgw_replica_cached_prompt_share",
    "Share of the replica's prompt tokens read from its engine's prompt cache, since the gateway started",
    ["model", "replica"],
  );
  /** Running sums behind the share, per model and replica (both bounded sets). */
  readonly #replicaSums = new Map<string, { prompt: number; cached: number }>();
  readonly queueWait = this.registry.histogram(
    "llmgw_queue_wait_seconds",
    "Time requests waited for a replica with room",
    ["model"],
    queueBuckets,
  );
  readonly admissionRefusals = this.registry.counter(
    "llmgw_admission_refusals_total",
    "Requests refused for want of room: queue_timeout (waited too long) or model_unavailable (no replica at all)",
    ["model", "reason"],
  );
  readonly limitRefusals = this.registry.counter(
    "llmgw_limit_refusals_total",
    "Requests refused by a rate limit or a budget, by kind and the level it is set at",
    ["kind", "level"],
  );
  readonly guardVerdicts = this.registry.counter(
    "llmgw_guard_verdicts_total",
    "Guardrail verdicts on requests and answers, by policy, rule and action (block, redact, flag)",
    ["policy", "rule", "action"],
  );
  readonly guardJudge = this.registry.histogram(
    "llmgw_guard_judge_seconds",
    "How long each judge model took to give a verdict (safe, unsafe) or gave none in its budget (late)",
    ["model", "outcome"],
    latencyBuckets,
  );
  readonly httpRequests = this.registry.counter(
    "llmgw_http_requests_total",
    "Every HTTP answer of the client and admin listener, by method, route pattern and status",
    ["method", "route", "status"],
  );
  readonly httpErrors = this.registry.counter(
    "llmgw_http_errors_total",
    "Error answers by their error code (the closed list in core/errors.ts)",
    ["code"],
  );
  readonly inFlight = this.registry.gauge(
    "llmgw_requests_in_flight",
    "Requests sent to replicas and not yet ended",
    ["model"],
  );
  readonly queueLength = this.registry.gauge(
    "llmgw_queue_length",
    "Requests waiting in the model's queue for a replica with room",
    ["model"],
  );
  readonly replicasByState = this.registry.gauge(
    "llmgw_replicas",
    "Replicas in the router's table by model and state",
    ["model", "state"],
  );
  readonly replicasWanted = this.registry.gauge(
    "llmgw_model_replicas_wanted",
    "Ready replicas the catalog wants of each model at all times (scaling.min; 0 when stopped, outside or on demand)",
    ["model"],
  );
  readonly breakers = this.registry.gauge(
    "llmgw_breakers",
    "Endpoints by model and circuit-breaker state (closed, open, half-open)",
    ["model", "state"],
  );
  readonly nodesByState = this.registry.gauge(
    "llmgw_nodes",
    "Joined nodes by state (ready, cordoned, draining, lost, waiting)",
    ["state"],
  );
  readonly agentConnections = this.registry.gauge(
    "llmgw_agent_connections",
    "Agents with an open control channel",
  );
  readonly gpuMemUsed = this.registry.gauge(
    "llmgw_gpu_memory_used_bytes",
    "Card memory in use, from the node's last heartbeat",
    ["node", "gpu"],
  );
  readonly gpuMemTotal = this.registry.gauge(
    "llmgw_gpu_memory_total_bytes",
    "Card memory in all",
    ["node", "gpu"],
  );
  readonly gpuUtil = this.registry.gauge(
    "llmgw_gpu_utilization_percent",
    "Share of the last sample in which any kernel ran (absent when the driver does not say)",
    ["node", "gpu"],
  );
  readonly gpuPower = this.registry.gauge(
    "llmgw_gpu_power_watts",
    "Card power draw",
    ["node", "gpu"],
  );
  readonly gpuPowerLimit = this.registry.gauge(
    "llmgw_gpu_power_limit_watts",
    "Card power limit now enforced; draw against it shows how much of the chip works",
    ["node", "gpu"],
  );
  readonly gpuTemp = this.registry.gauge(
    "llmgw_gpu_temperature_celsius",
    "Card temperature",
    ["node", "gpu"],
  );
  readonly diskFree = this.registry.gauge(
    "llmgw_node_disk_free_bytes",
    "Free disk where a node keeps weights or engines",
    ["node", "purpose"],
  );
  readonly usagePending = this.registry.gauge(
    "llmgw_usage_pending_rows",
    "Usage rows in memory not yet written to the store",
  );
  readonly usageOldest = this.registry.gauge(
    "llmgw_usage_oldest_pending_seconds",
    "Age of the oldest usage row not yet written (0 when none waits)",
  );
  readonly usageDropped = this.registry.gauge(
    "llmgw_usage_dropped_rows",
    "Usage rows dropped because the store could not take them for too long (since start)",
  );
  readonly cacheHits = this.registry.counter(
    "llmgw_answer_cache_hits_total",
    "Requests answered from the answer cache, by model and kind (exact, similar)",
    ["model", "kind"],
  );
  readonly cacheMisses = this.registry.counter(
    "llmgw_answer_cache_misses_total",
    "Requests the answer cache was asked for and had no answer to (sent on to a replica)",
    ["model"],
  );
  readonly cacheEntries = this.registry.gauge(
    "llmgw_answer_cache_entries",
    "Answers kept in this control plane's answer cache, by model",
    ["model"],
  );
  readonly cacheBytes = this.registry.gauge(
    "llmgw_answer_cache_bytes",
    "Bytes of this control plane's answer cache, by model",
    ["model"],
  );
  readonly buildInfo = this.registry.gauge(
    "llmgw_build_info",
    "Always 1; the version is a label",
    ["version"],
  );

  readonly connectionsRefused = this.registry.counter(
    "llmgw_connections_refused_total",
    "Client connections closed before a request was read (per_address, full; proxy_untrusted, proxy_malformed, proxy_missing: the PROXY protocol) and accept failures (descriptors, accept_error)",
    ["reason"],
  );
  readonly connectionsCut = this.registry.counter(
    "llmgw_connections_cut_total",
    "Client connections the listener closed itself: idle_timeout, header_timeout, body_too_slow, send_timeout (the client read nothing of its answer), shed (idle, to make room), shutdown",
    ["reason"],
  );
  readonly connectionsOpen = this.registry.gauge(
    "llmgw_connections_open",
    "Client connections open on the API listener",
  );
  /** What the client listener counts (server/edge/). */
  readonly edge: EdgeCounters = {
    refused: (reason) => this.connectionsRefused.inc({ reason }),
    cut: (reason) => this.connectionsCut.inc({ reason }),
    open: (n) => this.connectionsOpen.set({}, n),
  };

  #sources: MetricSources;

  constructor(sources: MetricSources = {}) {
    this.#sources = sources;
    this.buildInfo.set({ version: VERSION }, 1);
    registerProcessMetrics(this.registry);
    this.registry.collect(() => this.#collectRouter(this.#sources));
    this.registry.collect(() => this.#collectNodes(this.#sources));
    this.registry.collect(() => {
      const w = sources.usageWriter?.();
      if (!w) return;
      this.usagePending.set({}, w.pending);
      this.usageOldest.set({}, (w.oldestPendingMs ?? 0) / 1000);
      this.usageDropped.set({}, w.dropped);
    });
    this.registry.collect(() => this.#collectCache());
  }

  /** The answer cache is made after the metrics; its sizes are read at each scrape. */
  setAnswerCache(cache: AnswerCache): void {
    this.#sources = { ...this.#sources, answerCache: cache };
  }

  /** One judgment by a guardrail's judge model. */
  judged(model: string, outcome: "safe" | "unsafe" | "late", seconds: number): void {
    this.guardJudge.observe({ model, outcome }, seconds);
  }

  answerCacheMiss(model: string): void {
    this.cacheMisses.inc({ model });
  }

  #collectCache(): void {
    const stats = this.#sources.answerCache?.stats();
    if (!stats) return;
    this.cacheEntries.reset();
    this.cacheBytes.reset();
    for (const [model, s] of stats) {
      this.cacheEntries.set({ model }, s.entries);
      this.cacheBytes.set({ model }, s.bytes);
    }
  }

  /** The catalog is loaded after the metrics are made; its models get series at zero. */
  setCatalog(catalog: ModelCatalog): void {
    this.#sources = { ...this.#sources, catalog };
  }

  /** One inference request ended: counted from its usage row. */
  observeUsage(row: UsageRow): void {
    const model = row.model;
    const route = row.endpoint;
    this.requests.inc({ model, route, status: String(row.status) });
    this.duration.observe({ model, route }, row.latencyMs / 1000);
    const streamedTtft = row.stream && row.ttftMs !== null && row.ttftMs !== undefined
      ? row.ttftMs
      : null;
    if (streamedTtft !== null) this.ttft.observe({ model }, streamedTtft / 1000);
    this.recent.request(model, streamedTtft, this.#sources.routing?.admission.waiting(model) ?? 0);
    for (const v of row.guard ?? []) {
      this.guardVerdicts.inc({ policy: v.policy, rule: v.rule, action: v.action });
    }
    // An answer given back by the answer cache spent no engine's tokens.
    // Labelled with the catalog's name, as the misses and the cache's sizes are (not an alias).
    if (row.answerCache) {
      return void this.cacheHits.inc({ model: row.servedModel ?? model, kind: row.answerCache });
    }
    if (row.promptTokens) this.tokens.inc({ model, direction: "prompt" }, row.promptTokens);
    if (row.cachedTokens) this.tokens.inc({ model, direction: "cached" }, row.cachedTokens);
    if (row.completionTokens) {
      this.tokens.inc({ model, direction: "completion" }, row.completionTokens);
    }
    if (row.queueMs) this.queueWait.observe({ model }, row.queueMs / 1000);
    if (row.replicaId && row.promptTokens) this.#observeCache(model, row.replicaId, row);
  }

  #observeCache(
    model: string,
    replica: string,
    row: Pick<UsageRow, "promptTokens" | "cachedTokens">,
  ): void {
    const cached = row.cachedTokens ?? 0;
    this.replicaPrompt.inc({ model, replica, kind: "prompt" }, row.promptTokens);
    if (cached) this.replicaPrompt.inc({ model, replica, kind: "cached" }, cached);
    const id = `${model}\u0000${replica}`;
    const sums = this.#replicaSums.get(id) ?? { prompt: 0, cached: 0 };
    sums.prompt += row.promptTokens;
    sums.cached += cached;
    this.#replicaSums.set(id, sums);
    this.replicaCachedShare.set({ model, replica }, sums.cached / sums.prompt);
  }

  /** A request refused by a rate limit or a budget (called by the limits code). */
  refusal(kind: RefusalKind, level: RefusalLevel): void {
    this.limitRefusals.inc({ kind, level });
  }

  /** An HTTP answer left; `code` is the error code when it was an error. */
  observeHttp(
    method: string,
    route: string,
    status: number,
    error?: { code: string; model?: string },
  ): void {
    this.httpRequests.inc({ method, route, status: String(status) });
    if (!error) return;
    this.httpErrors.inc({ code: error.code });
    // Both errors are raised only for a model found in the catalog, so the label stays bounded.
    if (error.code === "queue_timeout" || error.code === "model_unavailable") {
      this.admissionRefusals.inc({ model: error.model ?? "", reason: error.code });
    }
  }

  render(): Promise<string> {
    return this.registry.render();
  }

  #collectRouter(s: MetricSources): void {
    if (!s.replicas) return;
    const gauges = [
      this.inFlight,
      this.queueLength,
      this.replicasByState,
      this.replicasWanted,
      this.breakers,
    ];
    for (const g of gauges) g.reset();
    const catalog = s.catalog?.list() ?? [];
    for (const e of catalog) this.replicasWanted.set({ model: e.name }, replicasWanted(e));
    const models = new Set(catalog.map((m) => m.name));
    for (const r of s.replicas.list()) models.add(r.model);
    for (const model of models) {
      this.queueLength.set({ model }, s.routing?.admission.waiting(model) ?? 0);
      // A model with no replica at all still has its series, at 0: an absent series never
      // compares equal to 0, so the "no ready replica" alert could not fire.
      this.replicasByState.set({ model, state: "ready" }, 0);
      let inFlight = 0;
      for (const r of s.replicas.forModel(model)) {
        inFlight += r.inFlight;
        this.replicasByState.inc({ model, state: r.state });
        this.breakers.inc({ model, state: r.breaker.state() });
      }
      this.inFlight.set({ model }, inFlight);
    }
  }

  async #collectNodes(s: MetricSources): Promise<void> {
    const hub = s.nodes?.();
    if (!hub) return;
    const views = await hub.list();
    for (
      const g of [
        this.nodesByState,
        this.gpuMemUsed,
        this.gpuMemTotal,
        this.gpuUtil,
        this.gpuPower,
        this.gpuPowerLimit,
        this.gpuTemp,
        this.diskFree,
      ]
    ) g.reset();
    this.agentConnections.set({}, views.filter((v) => v.connected).length);
    for (const v of views) {
      this.nodesByState.inc({ state: v.state });
      if (!v.connected) continue;
      const node = v.name;
      const gpus = (v.gpu as { gpus?: GpuFigures[] } | undefined)?.gpus ?? [];
      for (const g of gpus) {
        const l = { node, gpu: String(g.index) };
        // A figure the driver did not give stays absent, never 0.
        if (g.memoryUsedBytes !== undefined) this.gpuMemUsed.set(l, g.memoryUsedBytes);
        if (g.memoryTotalBytes !== undefined) this.gpuMemTotal.set(l, g.memoryTotalBytes);
        if (g.utilizationPercent !== undefined) this.gpuUtil.set(l, g.utilizationPercent);
        if (g.powerDrawW !== undefined) this.gpuPower.set(l, g.powerDrawW);
        if (g.powerLimitW !== undefined) this.gpuPowerLimit.set(l, g.powerLimitW);
        if (g.temperatureC !== undefined) this.gpuTemp.set(l, g.temperatureC);
      }
      const disks = (v.host as { disks?: { purpose: string; freeBytes: number }[] } | undefined)
        ?.disks ?? [];
      for (const d of disks) this.diskFree.set({ node, purpose: d.purpose }, d.freeBytes);
    }
  }
}

interface GpuFigures {
  index: number;
  memoryUsedBytes?: number;
  memoryTotalBytes?: number;
  utilizationPercent?: number;
  powerDrawW?: number;
  powerLimitW?: number;
  temperatureC?: number;
}
