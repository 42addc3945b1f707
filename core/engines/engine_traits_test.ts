import { assert, assertEquals } from "../../tests/assert.ts";
import { engineNames, engineReading, engineTraits, traitsOf } from "./engine_traits.ts";

Deno.test("each engine's traits are filed under its own name", () => {
  for (const name of engineNames) assertEquals(engineTraits[name].name, name);
  assertEquals(Object.keys(engineTraits).sort(), [...engineNames].sort());
});

Deno.test("a file type goes to the engine that reads it, a GGUF first; nothing reads the rest", () => {
  assertEquals(engineReading(new Set(["gguf"])), "llamacpp");
  assertEquals(engineReading(new Set(["safetensors"])), "vllm");
  assertEquals(engineReading(new Set(["safetensors", "gguf"])), "llamacpp");
  assertEquals(engineReading(new Set(["bin"])), undefined);
  // "nothing" is what the simulated engine reads, not a file type.
  assertEquals(engineReading(new Set(["nothing"])), undefined);
});

Deno.test("the engines beside llama.cpp and vLLM: tensor parallel on GPUs, or embeddings on any node", () => {
  assertEquals(traitsOf("sglang")?.tensorParallel, true);
  assertEquals(traitsOf("trtllm")?.gpu, "required");
  assertEquals(traitsOf("tei")?.gpu, "optional");
  assertEquals(traitsOf("tei")?.serves, ["embedding", "rerank"]);
  for (const name of engineNames) assert(engineTraits[name].serves.length > 0, name);
});

Deno.test("traits are found by a catalog's engine name, and an unknown name has none", () => {
  assertEquals(traitsOf("vllm")?.tensorParallel, true);
  assertEquals(traitsOf("sim")?.simulated, true);
  assertEquals(traitsOf("external"), undefined);
  assertEquals(traitsOf("toString"), undefined);
});
