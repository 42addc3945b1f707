/**
 * `planModel(source, cluster, catalog, options) → Plan`: what serving a source would mean here,
 * before anything is fetched (`ctl model plan`, the serve form, `ctl model serve`'s first step).
 * Pure: the caller resolves the source to its files (and reads a GGUF header or config.json into
 * `facts`) first.
 *
 * Engine by file type: .gguf → llamacpp; .safetensors (or a hub set holding them) → vllm;
 * anything else → refused ("nothing here reads .X files"). Layouts: every card count that can
 * hold the replica on some node (vLLM: counts that divide the KV heads or are multiples), fewest
 * cards first, each with its per-card need split into weights / context / engine, the nodes
 * whose cards are large enough and those with room now; a CPU layout for a GGUF. When no card
 * holds the full context pool the pool is shrunk to what fits (and said); when no card holds
 * the weights at all, refused. Refusals mean "do not add"; warnings mean "it may not run".
 */
import type { ClusterSnapshot, NodeView } from "./cluster_snapshot.ts";
import { usableFraction } from "./cluster_snapshot.ts";
import {
  type Estimate,
  formatBytes,
  type MemoryNeed,
  type ModelFacts,
  poolThatFits,
} from "./memory_estimate.ts";
import type { ModelInput } from "./model_schema.ts";
import { type EngineName, engineReading, engineTraits } from "../../core/engines/engine_traits.ts";
import { isPickleName } from "./model_source.ts";
import { type Constraint, place, tensorParallelProblem } from "./placement.ts";
import { type SetMember, splitText } from "./place_across.ts";
import { gpuWidths, splitLayout } from "./plan_split.ts";
import {
  type CatalogModel,
  chatSlots,
  defaultContext,
  embeddingContext,
  embeddingSlots,
  replicaNeed,
} from "./replica_need.ts";

export interface PlanSource {
  /** As the operator gave it: hf:org/repo/file, a URL, a path. */
  source: string;
  /** What it resolves to: one file, or the files of a hub set. */
  files: { name: string; bytes?: number }[];
  /** Read from the GGUF header or config.json; missing figures are guessed and said. */
  facts?: ModelFacts;
  weightsKey?: string;
}

export interface PlanOptions {
  name?: string;
  context?: number;
  slots?: number;
  replicas?: number;
  onDemand?: boolean;
  embeddings?: boolean;
  engine?: EngineName;
  /** A URL source's sha256, carried into the entry. */
  sha256?: string;
}

export interface PlanCatalog {
  /** Every name and alias in the catalog. */
  names: ReadonlySet<string>;
  /** Those declared in server.yaml (edited there, never duplicated). */
  configNames: ReadonlySet<string>;
}

export type RefusalCode =
  | "no_engine_reads"
  | "several_files"
  | "fits_no_card"
  | "name_taken"
  | "name_in_config"
  | "context_too_long";
export type WarningCode =
  | "engine_not_installed"
  | "gpu_engine_without_gpu"
  | "node_too_small"
  | "context_shrunk"
  | "estimate_guessed"
  | "no_room_now"
  | "split_across_nodes";

export interface Layout {
  device: "gpu" | "cpu";
  /** Cards of one node per replica (0: CPU). */
  gpus: number;
  perCard?: MemoryNeed;
  total: MemoryNeed;
  /** Nodes whose cards (or memory) are large enough, empty or not. */
  nodes: string[];
  /** Nodes where a replica would be placed now, with what runs there today. */
  freeNow: string[];
  /** Nodes large enough but without room now, each with the constraint that refuses it. */
  busy: { node: string; constraint: Constraint; reason: string }[];
  /** No single node holds it: the set of nodes that would, head first, with each one's part. */
  split?: SetMember[];
}

export interface Plan {
  ok: boolean;
  name: string;
  source: string;
  engine?: EngineName;
  embeddings: boolean;
  context: number;
  slots: number;
  trainedContext?: number;
  estimate?: Estimate;
  layouts: Layout[];
  refusals: { code: RefusalCode; message: string }[];
  warnings: { code: WarningCode; message: string }[];
  /** The entry `serve` would add (snake_case, as `ctl model add -f` takes it). */
  entry?: ModelInput;
}

const extOf = (name: string) => (/\.([A-Za-z0-9]+)$/.exec(name)?.[1] ?? "").toLowerCase();

/** The engine that reads the files, or the file type nothing reads. */
function engineFor(
  files: PlanSource["files"],
  source: string,
): { engine: EngineName } | { unread: string } {
  const exts = new Set(files.map((f) => extOf(f.name)).filter((e) => e !== "json" && e !== "txt"));
  const engine = engineReading(exts);
  if (engine) return { engine };
  const first = files.map((f) => f.name).find((n) => extOf(n) && extOf(n) !== "json") ?? source;
  return { unread: extOf(first) || "(no extension)" };
}

function defaultName(source: string): string {
  const last = source.replace(/[?#].*$/, "").split(/[/:]/).filter(Boolean).pop() ?? "model";
  const base = last.replace(/\.(gguf|safetensors)$/i, "").replace(/[^\w.:-]+/g, "-");
  return (base.replace(/^[^A-Za-z0-9]+/, "") || "model").slice(0, 128);
}

/** Nodes running `engine` with at least `gpus` cards, and the usable bytes of their n-th largest. */
function cardCapacity(nodes: NodeView[], gpus: number) {
  return nodes.filter((n) => n.gpus.length >= gpus).map((n) => {
    const sizes = n.gpus.map((g) => g.memoryTotal).sort((a, b) => b - a);
    return { node: n.name, usable: Math.floor((sizes[gpus - 1] ?? 0) * usableFraction) };
  });
}

export function planModel(
  src: PlanSource,
  cluster: ClusterSnapshot,
  catalog: PlanCatalog,
  opts: PlanOptions = {},
): Plan {
  const facts: ModelFacts = { ...src.facts };
  if (facts.weightsBytes === undefined && src.files.some((f) => f.bytes !== undefined)) {
    facts.weightsBytes = src.files.filter((f) => /\.(gguf|safetensors)$/i.test(f.name))
      .reduce((a, f) => a + (f.bytes ?? 0), 0);
  }
  const embeddings = opts.embeddings ?? (facts.pooling !== undefined && facts.pooling !== "none");
  const name = opts.name ?? defaultName(src.source);
  const trained = facts.trainedContext;
  let context = opts.context ??
    Math.min(embeddings ? embeddingContext : defaultContext, trained ?? Infinity);
  const slots = opts.slots ?? (embeddings ? embeddingSlots : chatSlots);
  const plan: Plan = {
    ok: false,
    name,
    source: src.source,
    embeddings,
    context,
    slots,
    layouts: [],
    refusals: [],
    warnings: [],
  };
  if (trained !== undefined) plan.trainedContext = trained;
  const refuse = (code: RefusalCode, message: string) => plan.refusals.push({ code, message });
  const warn = (code: WarningCode, message: string) => plan.warnings.push({ code, message });

  if (catalog.configNames.has(name)) {
    refuse("name_in_config", `'${name}' is declared in server.yaml: edit it there`);
  } else if (catalog.names.has(name)) {
    refuse("name_taken", `a model named '${name}' already exists: choose another --name`);
  }
  const found = engineFor(src.files, src.source);
  const byType = "engine" in found ? found.engine : undefined;
  // An engine that loads nothing (the simulated one) takes any source.
  if (!byType && !(opts.engine && engineTraits[opts.engine].reads === "nothing")) {
    const unread = "unread" in found ? found.unread : "";
    const pickle = isPickleName(`x.${unread}`)
      ? " (a pickle, which runs code when loaded; after checking the files, add it with allow_pickle: true through ctl model add -f)"
      : "";
    refuse("no_engine_reads", `nothing here reads .${unread} files${pickle}`);
    return plan;
  }
  const engine: EngineName = opts.engine ?? (byType as EngineName);
  const traits = engineTraits[engine];
  plan.engine = engine;
  if (traits.reads === "gguf") {
    const ggufs = src.files.filter((f) => extOf(f.name) === "gguf");
    if (ggufs.length > 1) {
      refuse(
        "several_files",
        `this version is ${ggufs.length} files, and a ${traits.label} entry takes one source file`,
      );
    }
  }
  if (trained !== undefined && context > trained) {
    refuse("context_too_long", `a context of ${context} is longer than the trained ${trained}`);
    return plan;
  }
  const withEngine = cluster.nodes.filter((n) => n.engines.includes(engine));
  if (!withEngine.length) warn("engine_not_installed", `no node reports ${engine} installed`);
  const pool = cluster.nodes.length && withEngine.length ? withEngine : cluster.nodes;
  const anyGpu = pool.some((n) => n.gpus.length > 0);

  const model = (ctx: number): CatalogModel => ({
    def: {
      name,
      aliases: [],
      capabilities: embeddings ? ["embeddings"] : ["chat", "completions"],
      contextLength: ctx,
      slots,
      prices: { promptPer1k: 0, completionPer1k: 0, cachedPer1k: 0, cacheHitPer1k: 0 },
      scaling: { min: 0, max: 1 },
      onDemand: false,
      fallbacks: [],
      allowPickle: false,
      profiles: [],
    },
    facts,
    ...(src.weightsKey ? { weightsKey: src.weightsKey } : {}),
  });
  const profile = (gpus: number) => ({
    engine,
    args: [],
    gpus,
    nodeSelector: {},
    weight: 1,
    priority: 0,
  });
  const layoutFor = (gpus: number, ctx: number): Layout => {
    const need = replicaNeed(model(ctx), profile(gpus));
    const sized = gpus > 0
      ? cardCapacity(pool, gpus).filter((c) => c.usable >= need.perCard.total).map((c) => c.node)
      : pool.filter((n) => n.ramTotal >= need.estimate.total).map((n) => n.name);
    // The reconciler's own function on the same view: where it fits now is where it would go.
    const verdicts = place(need.request, pool).considered;
    const freeNow = verdicts.filter((v) => v.ok).map((v) => v.node);
    const busy = verdicts.filter((v) => !v.ok && v.constraint && sized.includes(v.node)).map((
      v,
    ) => ({ node: v.node, constraint: v.constraint!, reason: v.reason }));
    const l: Layout = {
      device: gpus > 0 ? "gpu" : "cpu",
      gpus,
      total: {
        weights: need.estimate.weights,
        context: need.estimate.context,
        engine: need.estimate.total - need.estimate.weights - need.estimate.context,
        total: need.estimate.total,
      },
      nodes: sized,
      freeNow,
      busy,
    };
    if (gpus > 0) l.perCard = need.perCard;
    return l;
  };

  const maxCards = Math.max(0, ...pool.map((n) => n.gpus.length));
  const widths: number[] = [];
  for (let w = 1; w <= maxCards; w++) {
    if (!traits.tensorParallel || !tensorParallelProblem(w, facts.kvHeads)) widths.push(w);
  }
  if (anyGpu && traits.gpu !== "none") {
    let layouts = widths.map((w) => layoutFor(w, context)).filter((l) => l.nodes.length);
    if (!layouts.length) {
      // Shrink the pool to the most any layout holds, in whole 256-token steps per slot.
      const est = replicaNeed(model(context), profile(1)).estimate;
      let best = { w: 0, tokens: 0 };
      for (const w of widths) {
        for (const c of cardCapacity(pool, w)) {
          const tokens = poolThatFits(est, w, engine, c.usable);
          if (tokens > best.tokens) best = { w, tokens };
        }
      }
      const perSlot = Math.floor(best.tokens / slots / 256) * 256;
      if (perSlot >= 256) {
        warn(
          "context_shrunk",
          `the context pool was shrunk from ${context * slots} to ${
            perSlot * slots
          } tokens (${slots} × ${perSlot}) to fit the cards`,
        );
        context = perSlot;
        plan.context = context;
        layouts = widths.map((w) => layoutFor(w, context)).filter((l) => l.nodes.length);
      }
    }
    plan.layouts = layouts;
  }
  if (traits.gpu !== "required") {
    if (!anyGpu && traits.gpu === "optional") {
      warn(
        "gpu_engine_without_gpu",
        "no node has a GPU: a GGUF build runs on the CPU nodes, slowly",
      );
    }
    const cpu = layoutFor(0, context);
    const biggest = Math.max(0, ...pool.map((n) => n.ramTotal));
    if (!anyGpu || traits.gpu === "none") {
      // A CPU-only fleet: offered even when small, with a warning (it can run, it may not).
      plan.layouts.push(cpu);
      if (biggest < cpu.total.total) {
        warn(
          "node_too_small",
          `the largest node has ${formatBytes(biggest)} of memory, less than the ${
            formatBytes(cpu.total.total)
          } estimate`,
        );
      }
    } else if (!plan.layouts.length && cpu.nodes.length) {
      // No card holds it, but a node's memory does: llama.cpp runs it on the CPU.
      plan.layouts.push(cpu);
    }
  }
  if (traits.multiNode && !plan.layouts.some((l) => l.nodes.length)) {
    const split = splitLayout(
      gpuWidths(anyGpu && traits.gpu !== "none", widths),
      (gpus) => replicaNeed(model(context), profile(gpus)),
      pool,
      facts.layers,
    );
    if (split) {
      plan.layouts = [split];
      plan.warnings = plan.warnings.filter((w) => w.code !== "node_too_small");
      warn(
        "split_across_nodes",
        `no single node holds the ${formatBytes(split.total.total)} estimate: it is split across ${
          split.split!.length
        } nodes, ${splitText(split.split!)}${split.freeNow.length ? "" : " (once they have room)"}`,
      );
    }
  }
  if (!plan.layouts.length) {
    const biggest = Math.max(0, ...pool.flatMap((n) => n.gpus.map((g) => g.memoryTotal)));
    const w = facts.weightsBytes ?? 0;
    refuse(
      "fits_no_card",
      anyGpu
        ? `the weights (${formatBytes(w)}) fit no card: the largest offers ${
          formatBytes(biggest * usableFraction)
        } usable, on up to ${maxCards} card(s) per node${
          traits.gpu === "optional" ? ", and no node's memory holds them either" : ""
        }`
        : `${engine} needs a GPU and no node has one`,
    );
  }
  const best = plan.layouts[0];
  if (best && !best.freeNow.length && best.busy.length) {
    warn(
      "no_room_now",
      `no node has room for it now; it waits for room: ${
        best.busy.map((b) => `${b.node} (${b.constraint}) ${b.reason}`).join("; ")
      }`,
    );
  }
  if (best) {
    plan.estimate = replicaNeed(model(context), profile(best.gpus)).estimate;
    if (plan.estimate.guessed.length) {
      warn("estimate_guessed", `the estimate guesses the ${plan.estimate.guessed.join(" and ")}`);
    }
  }
  plan.ok = plan.refusals.length === 0;
  if (plan.ok && best) plan.entry = entryFor(plan, best, opts, src);
  return plan;
}

function entryFor(plan: Plan, best: Layout, opts: PlanOptions, src: PlanSource): ModelInput {
  const replicas = opts.replicas ?? 1;
  const entry: ModelInput = {
    name: plan.name,
    source: src.source,
    capabilities: plan.embeddings ? ["embeddings"] : ["chat", "completions"],
    context_length: plan.context,
    slots: plan.slots,
    on_demand: opts.onDemand ?? false,
    scaling: opts.onDemand ? { min: 0, max: replicas } : { min: replicas, max: replicas },
    profiles: [{
      engine: plan.engine!,
      gpus: best.gpus,
      // Never blank: the host memory a CPU replica reserves is the estimate.
      ...(best.device === "cpu"
        ? { memory_gb: Math.ceil((best.total.total / 1024 ** 3) * 10) / 10 }
        : {}),
    }],
  };
  if (plan.trainedContext) entry.trained_context = plan.trainedContext;
  if (opts.sha256) entry.sha256 = opts.sha256;
  return entry;
}
