/**
 * Placement over several nodes: `placeAcross(request, nodes, layers) → AcrossResult`, for an
 * engine with a `multiNode` trait when `place` finds no single node that holds the replica. Pure.
 *
 * Nodes are first judged as `place` judges them with the memory left out (state, engine, labels,
 * compute capability, cores), so a node refused for anything but room is refused here too. Then
 * the fewest nodes whose room together holds the replica are taken, roomiest first (weights
 * already on disk, then name, break ties): each node in a set costs a network hop per token, so
 * two nodes are always preferred to three. The head is the roomiest; the others are workers.
 *
 * The split is by layers when the model's layer count is known (llama.cpp offloads whole layers
 * to its RPC workers, vLLM's pipeline stages are runs of layers), in proportion to each node's
 * room, and each node's bytes are its layers' share of the whole; otherwise by bytes alone.
 */
import { cardRoom, type NodeView, ramRoom } from "./cluster_snapshot.ts";
import { formatBytes } from "./memory_estimate.ts";
import { judge, type NodeVerdict, type PlacementRequest } from "./placement.ts";

/** At most this many nodes serve one replica: past it, the hops cost more than the room gives. */
export const maxSetNodes = 8;

export interface SetMember {
  node: string;
  role: "head" | "worker";
  /** The cards it uses (`request.gpus` of them), [] on the CPU. */
  gpus: number[];
  /** Bytes it holds: of memory (CPU), or on each of its cards (GPU). */
  bytes: number;
  /** Layers it holds, when the model's count is known. */
  layers?: number;
  /** Its room before placing, in the same unit as `bytes` × cards. */
  room: number;
}

export type AcrossResult =
  | { ok: true; members: SetMember[]; need: number; considered: NodeVerdict[] }
  | { ok: false; reason: string; need: number; considered: NodeVerdict[] };

interface Candidate {
  node: NodeView;
  verdict: NodeVerdict;
  gpus: number[];
  /** Bytes it can take in all (over all its chosen cards). */
  room: number;
}

/** The replica's whole need, in the unit rooms are counted in: memory, or all its cards. */
export function setNeed(req: PlacementRequest): number {
  return req.gpus > 0 ? req.perCardBytes * req.gpus : req.ramBytes;
}

function candidate(req: PlacementRequest, node: NodeView): Candidate | NodeVerdict {
  const ignore = req.ignoreReplicas ?? new Set<string>();
  // Memory is what a set shares out; every other constraint applies to each member as it is.
  const verdict = judge({ ...req, perCardBytes: 0, ramBytes: 0 }, node);
  if (!verdict.ok) return verdict;
  if (req.gpus === 0) return { node, verdict, gpus: [], room: Math.max(0, ramRoom(node, ignore)) };
  if (ramRoom(node, ignore) < req.ramBytes) {
    return {
      node: node.name,
      ok: false,
      constraint: "ram",
      reason: `needs ${formatBytes(req.ramBytes)} of memory beside its cards`,
    };
  }
  const rooms = node.gpus.map((g) => ({ index: g.index, room: cardRoom(node, g, ignore) }))
    .sort((a, b) => b.room - a.room || a.index - b.index).slice(0, req.gpus);
  const least = Math.max(0, Math.min(...rooms.map((r) => r.room)));
  return {
    node,
    verdict,
    gpus: rooms.map((r) => r.index).sort((a, b) => a - b),
    room: least * req.gpus,
  };
}

/** Layers in proportion to room, each node at least one, never more than its room holds. */
function splitLayers(rooms: number[], layers: number, need: number): number[] | undefined {
  if (layers < rooms.length) return undefined;
  const perLayer = need / layers;
  const cap = rooms.map((r) => Math.floor(r / perLayer));
  const sum = rooms.reduce((a, r) => a + r, 0);
  const out = rooms.map((r, i) => Math.max(1, Math.min(cap[i]!, Math.floor((layers * r) / sum))));
  let left = layers - out.reduce((a, l) => a + l, 0);
  // The rounding's remainder goes to the roomiest nodes that can still take a layer.
  for (let i = 0; left > 0 && i < out.length * layers; i++) {
    const j = i % out.length;
    if (out[j]! < cap[j]!) {
      out[j]!++;
      left--;
    }
  }
  return left === 0 && out.every((l, i) => l <= cap[i]!) ? out : undefined;
}

export function placeAcross(
  req: PlacementRequest,
  nodes: readonly NodeView[],
  layers?: number,
): AcrossResult {
  const need = setNeed(req);
  const considered: NodeVerdict[] = [];
  const fits: Candidate[] = [];
  for (const n of nodes) {
    const c = candidate(req, n);
    if ("verdict" in c) fits.push(c);
    else considered.push(c);
  }
  const has = (c: Candidate) =>
    req.weightsKey !== undefined && c.node.weights.includes(req.weightsKey);
  fits.sort((a, b) =>
    b.room - a.room || Number(has(b)) - Number(has(a)) || a.node.name.localeCompare(b.node.name)
  );
  for (let k = 2; k <= Math.min(fits.length, maxSetNodes); k++) {
    const chosen = fits.slice(0, k);
    const rooms = chosen.map((c) => c.room);
    if (rooms.reduce((a, r) => a + r, 0) < need) continue;
    const split = layers ? splitLayers(rooms, layers, need) : undefined;
    if (layers && !split) continue;
    const sum = rooms.reduce((a, r) => a + r, 0);
    const members = chosen.map((c, i): SetMember => {
      const share = split ? (need * split[i]!) / layers! : (need * c.room) / sum;
      const m: SetMember = {
        node: c.node.name,
        role: i === 0 ? "head" : "worker",
        gpus: c.gpus,
        bytes: Math.ceil(req.gpus > 0 ? share / req.gpus : share),
        room: c.room,
      };
      if (split) m.layers = split[i]!;
      return m;
    });
    for (const c of fits) {
      const m = members.find((x) => x.node === c.node.name);
      considered.push({
        ...c.verdict,
        ok: m !== undefined,
        reason: m
          ? `${m.role}: ${m.layers !== undefined ? `${m.layers} layer(s), ` : ""}${
            formatBytes(m.bytes)
          }${req.gpus > 0 ? " per card" : ""} of its ${formatBytes(c.room)} free`
          : `not needed: ${k} roomier node(s) hold it`,
      });
    }
    return { ok: true, members, need, considered };
  }
  for (const c of fits) {
    considered.push({ ...c.verdict, reason: `${formatBytes(c.room)} free` });
  }
  const total = fits.slice(0, maxSetNodes).reduce((a, c) => a + c.room, 0);
  return {
    ok: false,
    reason: fits.length < 2
      ? "fewer than two nodes could take a part"
      : `needs ${formatBytes(need)}; the ${
        Math.min(fits.length, maxSetNodes)
      } roomiest nodes offer ${formatBytes(total)} together`,
    need,
    considered,
  };
}

/** "n1 (head) 5 layers 6.2 GB, n2 3 layers 3.8 GB": each node's part, for plans and notes. */
export function splitText(members: readonly SetMember[]): string {
  return members.map((m) =>
    `${m.node}${m.role === "head" ? " (head)" : ""} ${
      m.layers !== undefined ? `${m.layers} layer(s) ` : ""
    }${formatBytes(m.bytes)}${m.gpus.length ? ` × ${m.gpus.length} card(s)` : ""}`
  ).join(", ");
}

/** `ctl model explain` for a set: why one node was not enough, then each node's part. */
export function explainAcross(single: string, res: AcrossResult): string {
  const lines = [
    `  no single node holds ${formatBytes(res.need)} (${single}), so it is split across nodes:`,
  ];
  const width = Math.max(4, ...res.considered.map((v) => v.node.length));
  for (const v of res.considered) {
    const tag = v.ok ? "part    " : v.constraint ? "rejected" : "spare   ";
    const why = v.constraint ? `(${v.constraint}) ${v.reason}` : v.reason;
    lines.push(`  ${v.node.padEnd(width)}  ${tag}  ${why}`);
  }
  if (!res.ok) lines.push(`  → ${res.reason}`);
  return lines.join("\n");
}
