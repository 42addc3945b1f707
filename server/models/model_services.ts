/**
 * The model operations behind the admin API and `ctl model …`: add (from YAML or the serve
 * form), plan, explain, context / gpus / resources changes, stop / start, remove, rolling restart,
 * and the replica list. Each change goes to the catalog (store + memory) and kicks the
 * reconciler, which does the rest. A model declared in server.yaml is edited there: the API
 * refuses to add, change or remove it, saying so.
 */
import type { Logger } from "../../core/log.ts";
import { AppError } from "../../core/errors.ts";
import type { ModelCatalog, ModelEntry } from "../router/catalog.ts";
import { catalogModelOf, type ModelOrigin, rowFromDef } from "./catalog_row.ts";
import { changeContext, type ContextChange } from "./context_change.ts";
import { explainModel } from "./explain_model.ts";
import { changeGpus } from "./gpus_change.ts";
import { changeResources } from "./resources_change.ts";
import { ConfigPins } from "./config_pins.ts";
import type { ModelFacts } from "./memory_estimate.ts";
import type { ModelDef } from "./model_schema.ts";
import { parseModel } from "./model_yaml.ts";
import type { PlanOptions } from "./plan.ts";
import { planSource } from "./plan_source.ts";
import type { Reconciler } from "./reconciler.ts";
import type { CatalogModel } from "./replica_need.ts";
import { readModelFacts, type ReadPinnedConfig } from "./read_facts.ts";
import type { ReplicaRecords } from "./replica_records.ts";
import { type ReplicaRow, replicaRows } from "./replica_rows.ts";
import { inUse } from "./replica.ts";
import type { ReplicaTable } from "../router/replicas.ts";
import { isEmbedding } from "./replica_need.ts";
import type { PinnedSource, RemoteSource } from "../../core/weights/pinned_source.ts";
import type { MirrorService } from "../weights/mirror.ts";

/**
 * Resolves an hf: or URL source to the commit and sha256s current now (server/weights/pinSource),
 * so every node later fetches exactly those bytes.
 */
export type PinRemote = (
  source: string,
  opts: { allowPickle?: boolean; sha256?: string; safetensorsSet?: boolean },
) => Promise<PinnedSource>;

export type { ReplicaRow } from "./replica_rows.ts";

export class ModelServices {
  readonly #configPins: ConfigPins;

  constructor(
    readonly deps: {
      catalog: ModelCatalog;
      reconciler: Reconciler;
      records: ReplicaRecords;
      logger: Logger;
      replicas: ReplicaTable;
      /** Absent: hf: and URL sources are refused (no way to pin them). */
      pin?: PinRemote;
      /** Reads a pinned hf: set's config.json; absent: such a set's shape is guessed. */
      readConfig?: ReadPinnedConfig;
      /** The control plane's mirror: a model's remote weights are mirrored as it is added. */
      mirror?: Pick<MirrorService, "addPinned">;
    },
  ) {
    this.#configPins = new ConfigPins({
      catalog: deps.catalog,
      reconciler: deps.reconciler,
      logger: deps.logger,
      pin: (def) => this.#pinRemote(def.source ?? "", def.allowPickle, def.sha256),
      facts: (def, pinned) => this.factsFor(def, pinned),
      stored: (def, pinned) =>
        pinned.kind === "local" ? Promise.resolve() : this.#mirror(def, pinned).catch((e) => {
          this.deps.logger.warn("a server.yaml model's weights are not mirrored", {
            model: def.name,
            error: (e as Error).message,
          });
        }),
    });
  }

  /** The pinned source of a remote (hf: or URL) model source; undefined for a path. */
  async #pinRemote(
    source: string,
    allowPickle?: boolean,
    sha256?: string,
  ): Promise<PinnedSource | undefined> {
    const kind = parseSourceOrThrow(source).kind;
    if (kind === "path") return undefined;
    if (!this.deps.pin) {
      throw new AppError("invalid_request", {
        detail: "this control plane cannot resolve hf: or URL sources (no hub configured)",
      }, "source");
    }
    // A model is served from a whole safetensors set (engines read its folder), even where its
    // source names one file of it.
    return await this.deps.pin(source, {
      safetensorsSet: true,
      ...(allowPickle ? { allowPickle } : {}),
      ...(sha256 ? { sha256 } : {}),
    });
  }

  get reconciler(): Reconciler {
    return this.deps.reconciler;
  }

  /**
   * The model's shape, read where the control plane can: a local GGUF's header, a safetensors
   * set's config.json (pinned, or in a local folder it sees). Unreadable: guessed, and logged.
   */
  async factsFor(def: ModelDef, pinned?: PinnedSource): Promise<ModelFacts> {
    const src = def.parsedSource;
    const path = src?.kind === "path" ? src.path : undefined;
    try {
      return await readModelFacts(path, pinned, this.deps.readConfig);
    } catch (e) {
      this.deps.logger.warn("could not read the model's header or config; the estimate guesses", {
        model: def.name,
        error: (e as Error).message,
      });
      return {};
    }
  }

  /**
   * Loads server.yaml's models (marked from-config); earlier config models no longer there go.
   * hf: and URL sources are pinned beside the start (config_pins.ts); a pin stored for the same
   * source is kept, so a restart does not move a model to a newer commit.
   */
  async loadConfig(defs: readonly ModelDef[]): Promise<void> {
    const names = new Set(defs.map((d) => d.name));
    for (const e of this.deps.catalog.list()) {
      if (e.declaredIn === "config" && !names.has(e.name)) await this.deps.catalog.remove(e.name);
    }
    for (const def of defs) {
      const existing = this.deps.catalog.get(def.name);
      const row = rowFromDef(def, await this.factsFor(def), "config", existing?.stopped ?? false);
      const kind = def.external ? undefined : def.parsedSource?.kind;
      const remote = kind === "hf" || kind === "url";
      const kept = remote && existing?.name === def.name && existing.source === row.source
        ? existing.origin
        : null;
      await this.deps.catalog.upsert({ ...row, origin: kept });
      if (remote && !kept) this.#configPins.pin(def);
    }
  }

  /** Stops pinning server.yaml's sources. */
  close(): void {
    this.#configPins.close();
  }

  #entry(name: string): ModelEntry {
    const e = this.deps.catalog.get(name);
    if (!e) throw new AppError("model_not_found", { model: name }, "name");
    return e;
  }

  #managed(name: string): CatalogModel {
    const m = catalogModelOf(this.#entry(name));
    if (!m) {
      throw new AppError("conflict", {
        detail:
          `'${name}' was not added through the catalog (it is served as started); this is not supported for it`,
      });
    }
    return m;
  }

  #editable(name: string): void {
    const e = this.deps.catalog.get(name);
    if (e?.declaredIn === "config") {
      throw new AppError("conflict", {
        detail: `'${e.name}' is declared in server.yaml; change it there (then restart the server)`,
      });
    }
  }

  /** Saves a model; a change to an existing one keeps where it was declared unless told. */
  async #save(
    m: CatalogModel,
    origin?: ModelOrigin,
    pinned?: PinnedSource,
  ): Promise<ModelEntry> {
    const declared = this.deps.catalog.get(m.def.name)?.declaredIn as ModelOrigin | null;
    const row = await this.deps.catalog.upsert({
      ...rowFromDef(m.def, m.facts, origin ?? declared ?? "api", m.stopped ?? false),
      ...(pinned ? { origin: pinned } : {}),
    });
    this.deps.reconciler.kick();
    return row;
  }

  /** Adds models (or replaces ones added earlier through the API). */
  async add(
    defs: readonly ModelDef[],
    opts: { replace?: boolean; pinned?: Map<string, PinnedSource>; origin?: ModelOrigin } = {},
  ): Promise<ModelEntry[]> {
    for (const def of defs) {
      this.#editable(def.name);
      for (const n of [def.name, ...def.aliases]) {
        const other = this.deps.catalog.get(n);
        if (!other) continue;
        if (other.name !== def.name) {
          throw new AppError("conflict", {
            detail: `'${n}' already names the model '${other.name}'`,
          });
        }
        if (!opts.replace) {
          throw new AppError("conflict", {
            detail: `a model named '${def.name}' exists; remove it first or replace it`,
          });
        }
      }
    }
    // Pinned before anything is saved: a source that does not resolve adds nothing.
    const pins = new Map<string, PinnedSource | undefined>();
    for (const def of defs) {
      if (def.external || !def.source) continue;
      pins.set(
        def.name,
        opts.pinned?.get(def.source) ??
          await this.#pinRemote(def.source, def.allowPickle, def.sha256),
      );
    }
    // The mirror is asked first: weights that do not fit its disk refuse the add, with figures.
    for (const def of defs) {
      const pinned = pins.get(def.name);
      if (pinned && pinned.kind !== "local") await this.#mirror(def, pinned);
    }
    const out: ModelEntry[] = [];
    for (const def of defs) {
      out.push(
        await this.#save(
          { def, facts: await this.factsFor(def, pins.get(def.name)) },
          opts.origin ?? "api",
          pins.get(def.name),
        ),
      );
      this.deps.logger.info("model added", { model: def.name });
    }
    return out;
  }

  /**
   * Starts mirroring a model's pinned weights, so a node without the internet can fetch them
   * (progress: `ctl mirror list`). Weights that do not fit the mirror's disk are refused with
   * the figures (weights_no_space); any other failure to start it is only logged, the mirror being
   * a copy, not the source (nodes then fetch from the hub).
   */
  async #mirror(def: ModelDef, pinned: RemoteSource): Promise<void> {
    if (!this.deps.mirror) return;
    try {
      const v = await this.deps.mirror.addPinned(def.source ?? "", pinned);
      this.deps.logger.info("model weights mirroring", {
        model: def.name,
        mirror: v.id,
        status: v.status,
        ...(v.bytesTotal !== null ? { bytesTotal: v.bytesTotal } : {}),
      });
    } catch (e) {
      if (e instanceof AppError && e.code === "weights_no_space") throw e;
      this.deps.logger.warn("the model's weights could not be mirrored; nodes fetch from the hub", {
        model: def.name,
        error: (e as Error).message,
      });
    }
  }

  async plan(source: string, opts: PlanOptions, pinnedOut?: Map<string, PinnedSource>) {
    const kind = parseSourceOrThrow(source).kind;
    const pinned = kind === "hf" || kind === "url"
      ? await this.#pinRemote(source, undefined, opts.sha256)
      : undefined;
    if (pinned) pinnedOut?.set(source, pinned);
    const { snap, replicas } = await this.deps.reconciler.view();
    return await planSource(source, pinned, opts, {
      // The room live replicas hold counts, as it does when the reconciler places the model.
      cluster: inUse(snap.snapshot, replicas),
      catalog: this.deps.catalog,
      ...(this.deps.readConfig ? { readConfig: this.deps.readConfig } : {}),
    });
  }

  /** The serve form: plan, then add the entry the plan proposes. */
  async serve(source: string, opts: PlanOptions) {
    const pinned = new Map<string, PinnedSource>();
    const plan = await this.plan(source, opts, pinned);
    if (!plan.ok || !plan.entry) return { plan, added: false };
    await this.add([parseModel(plan.entry)], { pinned });
    return { plan, added: true };
  }

  async explain(name: string) {
    const m = this.#managed(name);
    const { snap, replicas } = await this.deps.reconciler.view();
    const { replicas: running, profiles } = explainModel(m, snap.snapshot, replicas);
    return {
      model: m.def.name,
      running,
      profiles,
      notes: this.deps.reconciler.notes(m.def.name),
      replicas: this.replicas(m.def.name),
    };
  }

  async context(name: string, change: ContextChange) {
    this.#editable(name);
    const m = this.#managed(name);
    const { snap } = await this.deps.reconciler.view();
    const r = changeContext(m, change, snap.snapshot);
    if (!r.ok) throw new AppError("invalid_request", { detail: r.message });
    await this.#save(r.model);
    return { model: name, restart: r.restart, def: r.model.def };
  }

  async gpus(name: string, cards: number, profile = 0) {
    this.#editable(name);
    const m = this.#managed(name);
    const { snap } = await this.deps.reconciler.view();
    const r = changeGpus(m, cards, snap.snapshot, profile);
    if (!r.ok) throw new AppError("invalid_request", { detail: r.message });
    await this.#save(r.model);
    return { model: name, restart: true, def: r.model.def };
  }

  async resources(name: string, set: { memoryGb?: number; cores?: number }, profile = 0) {
    this.#editable(name);
    const m = this.#managed(name);
    const { snap } = await this.deps.reconciler.view();
    const r = changeResources(m, set, snap.snapshot, profile);
    if (!r.ok) throw new AppError("invalid_request", { detail: r.message });
    await this.#save(r.model);
    return { model: name, restart: true, def: r.model.def };
  }

  async setStopped(name: string, stopped: boolean) {
    const e = this.#entry(name);
    const m = this.#managed(name);
    await this.#save({ ...m, stopped });
    this.deps.logger.info(stopped ? "model stopped" : "model started", { model: e.name });
    return { model: e.name, stopped };
  }

  async remove(name: string, purge: boolean) {
    this.#editable(name);
    const e = this.#entry(name);
    await this.deps.catalog.remove(e.name);
    this.deps.reconciler.kick();
    this.deps.logger.info("model removed", { model: e.name, purge });
    const origin = e.origin;
    if (purge && origin && origin.kind !== "local") {
      // The files go once its replicas stopped, except those another model's source names.
      const keep = this.deps.catalog.list().flatMap((o) => o.origin ? [o.origin] : []);
      this.deps.reconciler.purgeWeights(e.name, origin, keep).then(
        (r) => this.deps.logger.info("model weights purged", { model: e.name, nodes: r.nodes }),
        (err) =>
          this.deps.logger.warn("purging the model's weights failed", {
            model: e.name,
            error: err as Error,
          }),
      );
    }
    return { model: e.name, removed: true, purge };
  }

  /** `ctl weights prune`: nodes drop every fetched version no model in the catalog names. */
  async pruneWeights() {
    const keep = this.deps.catalog.list().flatMap((e) => e.origin ? [e.origin] : []);
    const r = await this.deps.reconciler.pruneWeights(keep);
    this.deps.logger.info("weights pruned", { nodes: r.nodes, failed: r.failed.length });
    return r;
  }

  /** A rolling restart: every live replica is marked stale, so the step replaces them one by one. */
  async restart(name: string) {
    const m = this.#managed(name);
    const live = this.deps.records.forModel(m.def.name).filter((s) =>
      ["pending", "fetching", "starting", "ready"].includes(s.state)
    );
    await this.deps.records.save(live.map((s) => ({ ...s, specHash: `restart:${s.specHash}` })));
    this.deps.reconciler.kick();
    return { model: m.def.name, restarting: live.length };
  }

  /**
   * One request straight to a ready replica (with its own key): a chat model answers a short
   * chat, an embedding model returns one vector. What `ctl model serve` waits for.
   */
  async smoke(name: string): Promise<{ ok: boolean; detail: string }> {
    const m = this.#managed(name);
    const r = this.deps.replicas.forModel(m.def.name).find((x) => x.state === "ready");
    if (!r) return { ok: false, detail: "no replica is ready" };
    const emb = isEmbedding(m.def);
    try {
      const res = await fetch(`${r.apiBase}/${emb ? "embeddings" : "chat/completions"}`, {
        method: "POST",
        headers: { authorization: `Bearer ${r.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify(
          emb
            ? { model: m.def.name, input: "hello" }
            : { model: m.def.name, max_tokens: 4, messages: [{ role: "user", content: "hi" }] },
        ),
        signal: AbortSignal.timeout(30_000),
      });
      const body = await res.json().catch(() => ({}));
      if (!res.ok) return { ok: false, detail: `the engine answered ${res.status}` };
      if (emb) {
        const v = body?.data?.[0]?.embedding;
        return Array.isArray(v) && v.length
          ? { ok: true, detail: `one vector of ${v.length} dimensions` }
          : { ok: false, detail: "the engine returned no vector" };
      }
      return { ok: true, detail: "a chat completion" };
    } catch (e) {
      return { ok: false, detail: (e as Error).message };
    }
  }

  replicas(model?: string): ReplicaRow[] {
    return replicaRows(this.deps.records.all(), (id) => this.deps.reconciler.nodeName(id), model);
  }
}

function parseSourceOrThrow(source: string) {
  try {
    return parseModel({ name: "plan", source, profiles: [{ engine: "sim" }] }).parsedSource!;
  } catch (e) {
    if (e instanceof AppError) {
      throw new AppError("invalid_request", { detail: `source: ${e.message}` }, "source");
    }
    throw e;
  }
}
