/**
 * `changeContext(model, {tokens?, slots?, maxOutput?}, snapshot)`: the catalog side of `ctl model
 * context` / `POST /api/v1/models/{name}/context`. Pure; returns the changed model and whether
 * replicas must restart (the reconciler then restarts them one by one), or a refusal with figures.
 *
 * Max output alone is the gateway's limit: in force at once, no restart. A context is checked
 * against the trained context and against what the cards hold (the largest node that could run
 * the profile, ignoring what runs there now); max output never exceeds the context (a max output
 * set earlier is lowered with it).
 */
import { type ClusterSnapshot, usableFraction } from "./cluster_snapshot.ts";
import { formatBytes } from "./memory_estimate.ts";
import { type CatalogModel, contextOf, replicaNeed, specHash } from "./replica_need.ts";

export interface ContextChange {
  tokens?: number;
  slots?: number;
  maxOutput?: number;
}

export type ContextChangeResult =
  | { ok: true; model: CatalogModel; restart: boolean }
  | { ok: false; message: string };

export function changeContext(
  model: CatalogModel,
  change: ContextChange,
  snapshot: ClusterSnapshot,
): ContextChangeResult {
  const no = (message: string): ContextChangeResult => ({ ok: false, message });
  if (change.tokens === undefined && change.slots === undefined && change.maxOutput === undefined) {
    return no("give a context length, slots or a max output");
  }
  for (const [k, v] of Object.entries(change)) {
    if (v !== undefined && (!Number.isInteger(v) || v < 1)) {
      return no(`${k} must be a whole number ≥ 1`);
    }
  }
  const trained = model.def.trainedContext ?? model.facts.trainedContext;
  if (change.tokens !== undefined && trained !== undefined && change.tokens > trained) {
    return no(`a context of ${change.tokens} is longer than the trained context of ${trained}`);
  }
  const def = { ...model.def };
  if (change.tokens !== undefined) def.contextLength = change.tokens;
  if (change.slots !== undefined) def.slots = change.slots;
  const next: CatalogModel = { ...model, def };
  const { context, slots } = contextOf(next);
  if (change.maxOutput !== undefined) {
    if (change.maxOutput > context) {
      return no(`a max output of ${change.maxOutput} is more than the context of ${context}`);
    }
    def.maxOutput = change.maxOutput;
  } else if (def.maxOutput !== undefined && def.maxOutput > context) {
    def.maxOutput = context;
  }
  const restart = def.profiles.some((p) => specHash(model, p) !== specHash(next, p));
  if (!restart) return { ok: true, model: next, restart };

  let best = "";
  for (const p of def.profiles) {
    const need = replicaNeed(next, p);
    const nodes = snapshot.nodes.filter((n) => n.engines.includes(p.engine));
    if (p.gpus === 0) {
      if (nodes.some((n) => n.ramTotal >= need.request.ramBytes)) {
        return { ok: true, model: next, restart };
      }
      const most = Math.max(0, ...nodes.map((n) => n.ramTotal));
      best ||= `needs ${formatBytes(need.request.ramBytes)} of memory; the largest node has ${
        formatBytes(most)
      }`;
      continue;
    }
    let largest = 0;
    for (const n of nodes) {
      const sizes = n.gpus.map((g) => g.memoryTotal).sort((a, b) => b - a);
      largest = Math.max(largest, Math.floor((sizes[p.gpus - 1] ?? 0) * usableFraction));
    }
    if (largest >= need.perCard.total) return { ok: true, model: next, restart };
    best ||= `needs ${formatBytes(need.perCard.total)} per card on ${p.gpus} card(s) (weights ${
      formatBytes(need.perCard.weights)
    }, context ${formatBytes(need.perCard.context)}, engine ${
      formatBytes(need.perCard.engine)
    }); the largest offers ${formatBytes(largest)}`;
  }
  return no(`a pool of ${context * slots} tokens (${slots} × ${context}) ${best}`);
}
