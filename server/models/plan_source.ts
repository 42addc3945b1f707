/**
 * `planSource(source, pinned, opts, ctx)`: `ctl model plan`'s inputs gathered for `planModel`.
 * A pinned hf: or URL source is planned from its files' sizes and, for a safetensors set, its
 * config.json; a path the control plane can see, from its files (a folder: every file in it)
 * and its GGUF header or config.json. The names already taken come from the catalog.
 */
import { AppError } from "../../core/errors.ts";
import type { PinnedSource } from "../../core/weights/pinned_source.ts";
import type { ModelCatalog } from "../router/catalog.ts";
import type { ClusterSnapshot } from "./cluster_snapshot.ts";
import type { ModelFacts } from "./memory_estimate.ts";
import { type Plan, planModel, type PlanOptions } from "./plan.ts";
import { readModelFacts, type ReadPinnedConfig } from "./read_facts.ts";

export async function planSource(
  source: string,
  pinned: PinnedSource | undefined,
  opts: PlanOptions,
  ctx: { cluster: ClusterSnapshot; catalog: ModelCatalog; readConfig?: ReadPinnedConfig },
): Promise<Plan> {
  const { files, facts } = pinned && pinned.kind !== "local"
    ? {
      files: pinned.files.map((f) => ({
        name: f.path.split("/").pop()!,
        ...(f.size !== null ? { bytes: f.size } : {}),
      })),
      facts: await readModelFacts(undefined, pinned, ctx.readConfig).catch((): ModelFacts => ({})),
    }
    : await localSource(source.trim());
  const names = new Set<string>();
  const configNames = new Set<string>();
  for (const e of ctx.catalog.list()) {
    names.add(e.name);
    for (const a of ((e.def as { aliases?: string[] } | null)?.aliases ?? [])) names.add(a);
    if (e.declaredIn === "config") configNames.add(e.name);
  }
  return planModel({ source, files, facts }, ctx.cluster, { names, configNames }, opts);
}

async function localSource(path: string) {
  let files: { name: string; bytes: number }[];
  try {
    files = await localFiles(path);
  } catch {
    throw new AppError("invalid_request", { detail: `${path}: no such file` }, "source");
  }
  try {
    return { files, facts: await readModelFacts(path, undefined, undefined) };
  } catch (e) {
    throw new AppError("invalid_request", { detail: (e as Error).message }, "source");
  }
}

/** A file as one, a folder (a safetensors set) as its files. */
async function localFiles(path: string): Promise<{ name: string; bytes: number }[]> {
  const st = await Deno.stat(path);
  if (!st.isDirectory) return [{ name: path.split("/").pop()!, bytes: st.size }];
  const out: { name: string; bytes: number }[] = [];
  for await (const e of Deno.readDir(path)) {
    if (e.isFile) out.push({ name: e.name, bytes: (await Deno.stat(`${path}/${e.name}`)).size });
  }
  return out;
}
