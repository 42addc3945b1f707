/**
 * What the request path asks of the models service (`AppDeps.models`), kept out of dispatch:
 * `check` refuses what the catalog entry forbids (a model an administrator stopped; `max_tokens`
 * above its `max_output`, which is refused, not clamped, as the reference says), and
 * `awaitReplica` holds a request for a model with no usable replica while the reconciler starts
 * one — up to `requestWaitMs`, then a 503 with Retry-After saying the phase it is in.
 *
 * The router's demand is in memory only (`Reconciler.want`): no store write per request.
 */
import { AppError } from "../../core/errors.ts";
import type { ModelEntry } from "../router/catalog.ts";
import { hasUsable } from "../router/choose.ts";
import type { ReplicaTable } from "../router/replicas.ts";
import { defOf } from "./catalog_row.ts";
import type { Reconciler } from "./reconciler.ts";

export interface ModelGate {
  check(entry: ModelEntry, body: Record<string, unknown>): void;
  /** Resolves once a replica may take it, or when the client left; throws at the deadline. */
  awaitReplica(entry: ModelEntry, signal: AbortSignal): Promise<void>;
  /** Room may have appeared for `model` (a replica became ready). */
  wake(model: string): void;
}

export function createModelGate(deps: {
  reconciler: Reconciler;
  replicas: ReplicaTable;
  requestWaitMs: () => number;
}): ModelGate {
  const waiters = new Map<string, Set<() => void>>();
  const wake = (model: string) => {
    for (const w of waiters.get(model) ?? []) w();
  };
  deps.reconciler.onStep = () => {
    for (const set of waiters.values()) for (const w of set) w();
  };
  return {
    wake,
    check(entry, body) {
      if (entry.stopped) throw new AppError("model_stopped", { model: entry.name });
      const max = defOf(entry)?.maxOutput;
      if (max === undefined) return;
      for (const field of ["max_tokens", "max_completion_tokens"]) {
        const asked = body[field];
        if (typeof asked === "number" && asked > max) {
          throw new AppError("invalid_request", {
            detail: `${field} ${asked} is more than this model's max output of ${max} tokens`,
          }, field);
        }
      }
    },
    async awaitReplica(entry, signal) {
      const def = defOf(entry);
      if (!def || def.external) return;
      const done = deps.reconciler.want(entry.name);
      const { promise, resolve } = Promise.withResolvers<"ready" | "timeout" | "left">();
      const check = () => {
        if (hasUsable(deps.replicas, entry.name, new Set())) resolve("ready");
      };
      const set = waiters.get(entry.name) ?? new Set();
      waiters.set(entry.name, set);
      set.add(check);
      const onAbort = () => resolve("left");
      signal.addEventListener("abort", onAbort, { once: true });
      const timer = setTimeout(() => resolve("timeout"), deps.requestWaitMs());
      check();
      try {
        const how = await promise;
        if (how !== "timeout") return;
        const { phase, detail } = deps.reconciler.phase(entry.name);
        throw new AppError(
          "model_starting",
          {
            model: entry.name,
            phase: detail ? `${phase}: ${detail}` : phase,
          },
          null,
          { retryAfterS: 10 },
        );
      } finally {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        set.delete(check);
        if (!set.size && waiters.get(entry.name) === set) waiters.delete(entry.name);
        done();
      }
    },
  };
}

/** Without a cluster listener nothing places models: no rule of theirs to check, nothing to wait for. */
export const noModelGate: ModelGate = {
  check() {},
  awaitReplica: () => Promise.resolve(),
  wake() {},
};
