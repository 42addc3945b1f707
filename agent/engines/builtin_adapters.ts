/** The engines this build can launch, by the name the catalog uses. */
import type { EngineAdapter, EngineName } from "./engine_adapter.ts";
import { llamacppAdapter } from "./llamacpp.ts";
import { simAdapter } from "./sim.ts";
import { vllmAdapter } from "./vllm.ts";

export const builtinAdapters: Readonly<Record<EngineName, EngineAdapter>> = {
  llamacpp: llamacppAdapter,
  sim: simAdapter,
  vllm: vllmAdapter,
};
