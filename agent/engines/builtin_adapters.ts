/**
 * The engines this build can launch, by the name the catalog uses (core/engines/engine_traits.ts
 * lists them); the supervisor itself accepts any adapter it is given.
 */
import type { EngineName } from "../../core/engines/engine_traits.ts";
import type { EngineAdapter } from "./engine_adapter.ts";
import { llamacppAdapter } from "./llamacpp.ts";
import { simAdapter } from "./sim.ts";
import { vllmAdapter } from "./vllm.ts";
import { sglangAdapter } from "./sglang.ts";
import { trtllmAdapter } from "./trtllm.ts";
import { teiAdapter } from "./tei.ts";

export const builtinAdapters: Readonly<Record<EngineName, EngineAdapter>> = {
  llamacpp: llamacppAdapter,
  sim: simAdapter,
  vllm: vllmAdapter,
  sglang: sglangAdapter,
  trtllm: trtllmAdapter,
  tei: teiAdapter,
};
