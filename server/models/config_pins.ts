/**
 * `ConfigPins`: pins the hf: and URL sources of server.yaml's models, as the API pins a model it
 * adds (the commit current then, each file's sha256 and size, stored as the catalog entry's
 * origin). Beside the start, not in its way: a hub that is down or slow must not keep the whole
 * server from serving its other models. Until its pin is stored the model starts nothing (the
 * reconciler holds it) and its note says why — `explain`, and the phase in a request's 503. A
 * failed pin is tried again after 2 s, doubling to at most 5 min, until it succeeds or the
 * entry changes; each failure is logged with the reason.
 */
import type { Logger } from "../../core/log.ts";
import type { PinnedSource } from "../../core/weights/pinned_source.ts";
import type { ModelCatalog } from "../router/catalog.ts";
import { rowFromDef } from "./catalog_row.ts";
import type { ModelFacts } from "./memory_estimate.ts";
import type { ModelDef } from "./model_schema.ts";
import { secs } from "./model_step.ts";
import type { Reconciler } from "./reconciler.ts";

export const pinRetryFirstMs = 2_000;
export const pinRetryMaxMs = 300_000;

export class ConfigPins {
  readonly #timers = new Map<string, ReturnType<typeof setTimeout>>();
  #closed = false;

  constructor(
    private readonly deps: {
      catalog: ModelCatalog;
      reconciler: Reconciler;
      logger: Logger;
      pin: (def: ModelDef) => Promise<PinnedSource | undefined>;
      /** The model's shape once its files are pinned (a safetensors set's config.json). */
      facts: (def: ModelDef, pinned: PinnedSource) => Promise<ModelFacts>;
      /** Once stored: the weights start mirroring. */
      stored: (def: ModelDef, pinned: PinnedSource) => Promise<void>;
    },
  ) {}

  /** Pins `def`'s source now, and again after failures, until stored. */
  pin(def: ModelDef, attempt = 0): void {
    clearTimeout(this.#timers.get(def.name));
    this.#timers.delete(def.name);
    if (this.#closed) return;
    const source = def.source ?? "";
    // Still this model, from server.yaml, with this source? A later load may have changed it.
    const current = () => {
      const e = this.deps.catalog.get(def.name);
      return e && e.name === def.name && e.declaredIn === "config" && e.source === source
        ? e
        : undefined;
    };
    (async () => {
      try {
        const pinned = await this.deps.pin(def);
        if (!current() || this.#closed || !pinned) return;
        const facts = {
          ...(current()?.facts ?? {}) as ModelFacts,
          ...await this.deps.facts(def, pinned),
        };
        const e = current();
        if (!e || this.#closed) return;
        await this.deps.catalog.upsert({
          ...rowFromDef(def, facts, "config", e.stopped),
          origin: pinned,
        });
        this.deps.reconciler.hold(def.name, undefined);
        this.deps.logger.info("model source pinned", { model: def.name, source });
        await this.deps.stored(def, pinned);
      } catch (err) {
        if (this.#closed || !current()) return;
        const wait = Math.min(pinRetryMaxMs, pinRetryFirstMs * 2 ** attempt);
        const why = (err as Error).message;
        this.deps.reconciler.hold(
          def.name,
          `its source ${source} could not be pinned: ${why}; trying again in ${secs(wait)}`,
        );
        this.deps.logger.warn("a server.yaml model's source could not be pinned", {
          model: def.name,
          source,
          error: why,
          retryInMs: wait,
        });
        this.#timers.set(def.name, setTimeout(() => this.pin(def, attempt + 1), wait));
      }
    })();
  }

  close(): void {
    this.#closed = true;
    for (const t of this.#timers.values()) clearTimeout(t);
    this.#timers.clear();
  }
}
