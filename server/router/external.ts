/**
 * Outside providers as models: a catalog entry with engine `external` names an OpenAI-compatible
 * base URL (its `source`) and the files holding its keys. Each key becomes its own endpoint,
 * `external:MODEL#n`, with its own weight and circuit breaker, because a provider's limits are per
 * key. Keys are read from their files here, once per load, and live only in the replica table:
 * never logged, stored, or put in an error.
 */
import type { Logger } from "../../core/log.ts";
import type { ModelCatalog, ModelEntry } from "./catalog.ts";
import type { Replica, ReplicaTable } from "./replicas.ts";

export const externalEngine = "external";

export function endpointId(model: string, n: number): string {
  return `external:${model}#${n}`;
}

/** Replaces the model's endpoints with one per readable key file. Returns how many there are. */
export async function loadExternalModel(
  entry: ModelEntry,
  table: ReplicaTable,
  logger: Logger,
): Promise<number> {
  const keys = entry.externalKeys?.length ? entry.externalKeys : [{ file: "", weight: 1 }];
  const fresh: { id: string; key: string; weight: number }[] = [];
  for (const [i, k] of keys.entries()) {
    const id = endpointId(entry.name, i + 1);
    if (!k.file) {
      // A provider that needs no key.
      fresh.push({ id, key: "", weight: k.weight ?? 1 });
      continue;
    }
    try {
      const key = (await Deno.readTextFile(k.file)).trim();
      if (!key) throw new Error("the file is empty");
      fresh.push({ id, key, weight: k.weight ?? 1 });
    } catch (e) {
      // The file's name is not a secret; its content is never read into this message.
      logger.warn("an outside provider's key file could not be read; endpoint left out", {
        endpoint: id,
        file: k.file,
        error: e instanceof Deno.errors.NotFound ? "no such file" : (e as Error).name,
      });
    }
  }
  removeExternal(entry.name, table);
  for (const f of fresh) {
    table.upsert({
      id: f.id,
      model: entry.name,
      baseUrl: entry.source,
      apiKey: f.key,
      state: "ready",
      external: true,
      weight: f.weight,
    });
  }
  return fresh.length;
}

function removeExternal(model: string, table: ReplicaTable): void {
  for (const r of [...table.forModel(model)]) if (r.external) table.remove(r.id);
}

/**
 * Loads every external model now and follows catalog changes, one load at a time (so two quick
 * changes cannot interleave). `settled()` resolves once the loads asked for so far are done.
 */
export async function followExternalModels(
  catalog: ModelCatalog,
  table: ReplicaTable,
  logger: Logger,
): Promise<{ settled(): Promise<void> }> {
  for (const m of catalog.list()) {
    if (m.engine === externalEngine) await loadExternalModel(m, table, logger);
  }
  let chain = Promise.resolve();
  catalog.subscribe((entry, name) => {
    chain = chain.then(async () => {
      if (entry?.engine === externalEngine) await loadExternalModel(entry, table, logger);
      else removeExternal(name, table);
    }).catch((e) => logger.error("outside endpoints not refreshed", { model: name, error: e }));
  });
  return { settled: () => chain };
}

/**
 * Smooth weighted round robin (as nginx does) over the endpoints that can take a request: each
 * gets its weight's share, evenly interleaved, and an endpoint whose breaker is open simply drops
 * out of the candidates until it closes.
 */
const current = new WeakMap<Replica, number>();
export function pickWeighted(candidates: readonly Replica[]): Replica {
  let total = 0;
  let best: Replica = candidates[0]!;
  let bestCw = -Infinity;
  for (const r of candidates) {
    const cw = (current.get(r) ?? 0) + r.weight;
    current.set(r, cw);
    total += r.weight;
    if (cw > bestCw) [best, bestCw] = [r, cw];
  }
  current.set(best, bestCw - total);
  return best;
}
