/**
 * `readModelFacts(source, pinned, readConfig)`: what the control plane can learn of a model's
 * shape before any node fetches it. A local GGUF: its header. Safetensors: the set's
 * `config.json` (layers, heads, KV heads, hidden size, dtype, max positions), from the pinned
 * files of an hf: set (read back at the pinned commit and checked against its sha256) or from
 * the folder of a local path the control plane can see; the weights' size is the sum of the
 * .safetensors files. Nothing readable: no facts, and the estimate says what it guessed.
 */
import { readGgufFile } from "../../core/gguf/read_gguf_file.ts";
import type { PinnedSource } from "../../core/weights/pinned_source.ts";
import { factsFromHfConfig } from "./hf_config_facts.ts";
import type { ModelFacts } from "./memory_estimate.ts";
import { factsFromGguf } from "./replica_need.ts";

/** A pinned hf: set's config.json, parsed; undefined when the set has none. */
export type ReadPinnedConfig = (pinned: PinnedSource) => Promise<unknown>;

export async function readModelFacts(
  path: string | undefined,
  pinned: PinnedSource | undefined,
  readConfig: ReadPinnedConfig | undefined,
): Promise<ModelFacts> {
  if (pinned && pinned.kind !== "local") {
    const weights = pinned.files.filter((f) => f.path.endsWith(".safetensors"));
    if (!weights.length) return {};
    const facts = readConfig ? factsFromHfConfig(await readConfig(pinned)) : {};
    if (weights.every((f) => f.size !== null)) {
      facts.weightsBytes = weights.reduce((a, f) => a + (f.size ?? 0), 0);
    }
    return facts;
  }
  if (!path) return {};
  if (/\.gguf$/i.test(path)) return factsFromGguf((await readGgufFile(path)).facts);
  return await localSafetensorsFacts(path);
}

/** A folder of safetensors (or one file of it): config.json beside the weights. */
async function localSafetensorsFacts(path: string): Promise<ModelFacts> {
  const dir = safetensorsDir(path);
  let config: unknown;
  try {
    config = JSON.parse(await Deno.readTextFile(`${dir}/config.json`));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) return {};
    throw new Error(`${dir}/config.json: ${(e as Error).message}`);
  }
  const facts = factsFromHfConfig(config);
  let bytes = 0;
  for await (const e of Deno.readDir(dir)) {
    if (e.isFile && e.name.endsWith(".safetensors")) {
      bytes += (await Deno.stat(`${dir}/${e.name}`)).size;
    }
  }
  if (bytes > 0) facts.weightsBytes = bytes;
  return facts;
}

/** The folder an engine reading safetensors is given: the path itself, or a file's folder. */
export function safetensorsDir(path: string): string {
  return /\.safetensors$/i.test(path) ? path.replace(/\/[^/]*$/, "") || "/" : path;
}
