/**
 * Placement: `place(request, nodes) → PlaceResult` picks one node and its cards for one replica,
 * or says, node by node, which constraint rejected it. Pure.
 *
 * Filter, in this order (the first that fails is the node's reason): state (ready and not
 * cordoned), engine installed, labels (node selector; a node labelled `llmgw.role: X` takes only
 * requests whose selector asks for X), compute capability, card memory (90 % of a card usable,
 * see cluster_snapshot.ts), RAM, cores. Then score: weights already on the node first (a fetch
 * costs minutes to hours), then pack before spreading (least room left on the chosen cards),
 * then name. Within a node the fullest cards that fit are taken, for the same reason. Fewest
 * cards and fewest nodes are compared across layouts and profiles (placeModel, plan).
 *
 * Tensor-parallel width must divide the KV heads or be a multiple of them (vLLM copies a head to
 * each card past the count: 8 heads → 2, 4, 8, 16, never 3 or 12); a width that breaks this is
 * refused before any node is looked at.
 */
import {
  cardRoom,
  coreRoom,
  type GpuView,
  type NodeView,
  ramRoom,
  roleLabel,
} from "./cluster_snapshot.ts";
import { formatBytes } from "./memory_estimate.ts";

export interface PlacementRequest {
  model: string;
  engine: string;
  /** Cards of one node per replica; 0 runs on the CPU. */
  gpus: number;
  /** Bytes needed on each card (weights + context + engine share). */
  perCardBytes: number;
  ramBytes: number;
  cores: number;
  nodeSelector: Record<string, string>;
  minComputeCapability?: number;
  minCardMemoryBytes?: number;
  /** KV heads, for the tensor-parallel width rule; the rule applies when `tensorParallel`. */
  kvHeads?: number;
  tensorParallel: boolean;
  /** Identifies the weights on a node's disk (NodeView.weights). */
  weightsKey?: string;
  /** Replicas whose room counts as free: a restart's old replica, an eviction's victim. */
  ignoreReplicas?: ReadonlySet<string>;
  /** Nodes not to use (the one a replica just failed on). */
  avoidNodes?: ReadonlySet<string>;
}

export type Constraint =
  | "state"
  | "avoided"
  | "engine"
  | "labels"
  | "compute"
  | "card_memory"
  | "ram"
  | "cores";

export interface NodeVerdict {
  node: string;
  ok: boolean;
  /** The constraint that rejected the node (absent when it fits). */
  constraint?: Constraint;
  reason: string;
  gpus?: number[];
  hasWeights?: boolean;
  /** Bytes left on the chosen cards (or RAM for a CPU replica) after placing. */
  leftover?: number;
}

export type PlaceResult =
  | { ok: true; node: string; gpus: number[]; considered: NodeVerdict[] }
  | { ok: false; reason: string; considered: NodeVerdict[] };

/** Why a tensor-parallel width cannot be used with `kvHeads`, or undefined if it can. */
export function tensorParallelProblem(width: number, kvHeads: number | undefined) {
  if (width <= 1 || !kvHeads) return undefined;
  if (kvHeads % width === 0 || width % kvHeads === 0) return undefined;
  return `${width} cards cannot split ${kvHeads} KV heads: the width must divide them or be a multiple of them`;
}

function labelsProblem(req: PlacementRequest, node: NodeView): string | undefined {
  const role = node.labels[roleLabel];
  if (role !== undefined && req.nodeSelector[roleLabel] !== role) {
    return `the node is for role '${role}' only`;
  }
  for (const [k, v] of Object.entries(req.nodeSelector)) {
    if (node.labels[k] !== v) {
      return node.labels[k] === undefined
        ? `no label ${k} (selector asks ${k}=${v})`
        : `label ${k}=${node.labels[k]} (selector asks ${v})`;
    }
  }
  return undefined;
}

export function judge(req: PlacementRequest, node: NodeView): NodeVerdict {
  const no = (constraint: Constraint, reason: string): NodeVerdict => ({
    node: node.name,
    ok: false,
    constraint,
    reason,
  });
  const ignore = req.ignoreReplicas ?? new Set<string>();
  if (node.state !== "ready") return no("state", `the node is ${node.state.replace("_", " ")}`);
  if (node.cordoned) return no("state", "the node is cordoned");
  if (req.avoidNodes?.has(node.name)) return no("avoided", "a replica just failed here");
  if (!node.engines.includes(req.engine)) {
    const has = node.engines.length ? node.engines.join(", ") : "none";
    return no("engine", `${req.engine} is not installed (has ${has})`);
  }
  const labels = labelsProblem(req, node);
  if (labels) return no("labels", labels);
  let gpus: number[] = [];
  let leftover = 0;
  if (req.gpus > 0) {
    if (node.gpus.length < req.gpus) {
      return no("card_memory", `has ${node.gpus.length} card(s), needs ${req.gpus}`);
    }
    const minCc = req.minComputeCapability;
    const capable = node.gpus.filter((g) =>
      minCc === undefined || (g.computeCapability !== undefined && g.computeCapability >= minCc)
    );
    if (capable.length < req.gpus) {
      const seen = node.gpus.map((g) => g.computeCapability ?? "unknown").join(", ");
      return no("compute", `needs compute capability ${minCc} on ${req.gpus} card(s); has ${seen}`);
    }
    const sized = capable.filter((g) =>
      req.minCardMemoryBytes === undefined || g.memoryTotal >= req.minCardMemoryBytes
    );
    const rooms = sized.map((g: GpuView) => ({ g, room: cardRoom(node, g, ignore) }));
    const fit = rooms.filter((r) => r.room >= req.perCardBytes).sort((a, b) =>
      a.room - b.room || a.g.index - b.g.index
    );
    if (fit.length < req.gpus) {
      const each = rooms.map((r) => `card ${r.g.index}: ${formatBytes(Math.max(0, r.room))}`);
      return no(
        "card_memory",
        `needs ${req.gpus} card(s) with ${formatBytes(req.perCardBytes)} free; has ${
          each.join(", ") || "no card large enough"
        }`,
      );
    }
    const chosen = fit.slice(0, req.gpus);
    gpus = chosen.map((r) => r.g.index).sort((a, b) => a - b);
    leftover = chosen.reduce((a, r) => a + r.room - req.perCardBytes, 0);
  }
  const ram = ramRoom(node, ignore);
  if (ram < req.ramBytes) {
    return no("ram", `needs ${formatBytes(req.ramBytes)} of memory; ${formatBytes(ram)} free`);
  }
  const cores = coreRoom(node, ignore);
  if (cores < req.cores) return no("cores", `needs ${req.cores} core(s); ${cores} free`);
  if (req.gpus === 0) leftover = ram - req.ramBytes;
  const hasWeights = req.weightsKey !== undefined && node.weights.includes(req.weightsKey);
  const where = gpus.length ? `card(s) ${gpus.join(",")}` : "CPU";
  return {
    node: node.name,
    ok: true,
    reason: `fits on ${where}${hasWeights ? ", weights already here" : ""}`,
    gpus,
    hasWeights,
    leftover,
  };
}

/** Better first: weights present, then least room left (pack), then name. */
export function compareFits(a: NodeVerdict, b: NodeVerdict): number {
  return Number(!a.hasWeights) - Number(!b.hasWeights) ||
    (a.leftover ?? 0) - (b.leftover ?? 0) || a.node.localeCompare(b.node);
}

export function place(req: PlacementRequest, nodes: readonly NodeView[]): PlaceResult {
  if (req.tensorParallel) {
    const tp = tensorParallelProblem(req.gpus, req.kvHeads);
    if (tp) return { ok: false, reason: tp, considered: [] };
  }
  const considered = nodes.map((n) => judge(req, n));
  const fits = considered.filter((v) => v.ok).sort(compareFits);
  const best = fits[0];
  if (best) return { ok: true, node: best.node, gpus: best.gpus ?? [], considered };
  const reason = nodes.length ? "no node fits" : "no node is known";
  return { ok: false, reason, considered };
}

/** `ctl model explain`: one line for the request, then one per node considered. */
export function explainText(req: PlacementRequest, result: PlaceResult): string {
  const what = req.gpus > 0 ? `${req.gpus} card(s) × ${formatBytes(req.perCardBytes)}` : "the CPU";
  const lines = [
    `${req.model}: ${req.engine} on ${what}, ${
      formatBytes(req.ramBytes)
    } memory, ${req.cores} core(s)`,
  ];
  if (!result.ok && !result.considered.length) lines.push(`  refused: ${result.reason}`);
  const chosen = result.ok ? result.node : undefined;
  const width = Math.max(4, ...result.considered.map((v) => v.node.length));
  for (const v of result.considered) {
    const tag = v.node === chosen ? "chosen  " : v.ok ? "fits    " : "rejected";
    const why = v.constraint ? `(${v.constraint}) ${v.reason}` : v.reason;
    lines.push(`  ${v.node.padEnd(width)}  ${tag}  ${why}`);
  }
  if (!result.ok && result.considered.length) lines.push(`  → ${result.reason}`);
  return lines.join("\n");
}
