import { assert, assertEquals, assertThrows } from "../../tests/assert.ts";
import { AppError } from "../../core/errors.ts";
import { parseModel, parseModelList, parseModelYaml } from "./model_yaml.ts";
import { parseSource } from "./model_source.ts";
import { rowFromDef } from "./catalog_row.ts";

const full = `
name: llama3-8b
description: "  A general chat model  "
aliases: [llama3]
source: hf:meta/llama3-8b-gguf/llama3-8b.Q4_K_M.gguf@abc123
capabilities: [chat, completions, tools]
trained_context: 8192
context_length: 4096
slots: 4
max_output: 1024
prices: { prompt_per_1k: 100, completion_per_1k: 300, cached_per_1k: 10 }
scaling: { min: 1, max: 3 }
routing: long-context
fallbacks: [small]
profiles:
  - engine: llamacpp
    args: ["--flash-attn", "on"]
    gpus: 2
    memory_gb: 8
    cores: 4
    node_selector: { llmgw.role: judge }
    gpu: { min_compute_capability: 8.0, min_memory_gb: 24 }
    weight: 2
    priority: 1
`;

Deno.test("model schema: a full entry from YAML", () => {
  const [m] = parseModelYaml(full);
  assertEquals(m!.name, "llama3-8b");
  assertEquals(m!.description, "A general chat model");
  assertEquals(m!.parsedSource, {
    kind: "hf",
    repo: "meta/llama3-8b-gguf",
    file: "llama3-8b.Q4_K_M.gguf",
    revision: "abc123",
  });
  assertEquals(m!.prices, {
    promptPer1k: 100,
    completionPer1k: 300,
    cachedPer1k: 10,
    cacheHitPer1k: 0,
  });
  assertEquals(m!.scaling, { min: 1, max: 3 });
  assertEquals(m!.routing, "long-context");
  assertEquals(m!.profiles[0], {
    engine: "llamacpp",
    args: ["--flash-attn", "on"],
    gpus: 2,
    memoryGb: 8,
    cores: 4,
    nodeSelector: { "llmgw.role": "judge" },
    minComputeCapability: 8,
    minCardMemoryGb: 24,
    weight: 2,
    priority: 1,
  });
});

Deno.test("model schema: defaults; a blank description is absent, not empty", () => {
  const m = parseModel({
    name: "m",
    description: "   ",
    source: "/models/m.gguf",
    profiles: [{ engine: "llamacpp" }],
  });
  assert(!("description" in m), "no description key at all");
  assertEquals(m.scaling, { min: 1, max: 1 });
  assertEquals(m.capabilities, ["chat", "completions"]);
  assertEquals(m.profiles[0]!.gpus, 0);
  const od = parseModel({
    name: "od",
    source: "/m.gguf",
    on_demand: true,
    profiles: [{ engine: "llamacpp" }],
  });
  assertEquals(od.scaling, { min: 0, max: 1 });
});

Deno.test("model schema: unknown keys are refused with their path", () => {
  const e = assertThrows(
    () =>
      parseModelList([
        { name: "a", source: "/a.gguf", profiles: [{ engine: "llamacpp" }] },
        { name: "b", source: "/b.gguf", profiles: [{ engine: "llamacpp", gpu_count: 2 }], x: 1 },
      ]),
    AppError,
  );
  assertEquals(e.code, "invalid_request");
  assert(e.message.includes("models[1].profiles[0].gpu_count: unknown key"), e.message);
  assert(e.message.includes("models[1].x: unknown key"), e.message);
  assertEquals(e.param, "models[1].profiles[0].gpu_count");
});

Deno.test("model schema: the rules beyond types", () => {
  const base = { name: "m", source: "/m.gguf", profiles: [{ engine: "llamacpp" }] };
  const cases: [Record<string, unknown>, string][] = [
    [{ ...base, source: undefined }, "source: give exactly one of source or external"],
    [{ ...base, external: { url: "https://x.test/v1", model: "gpt" } }, "exactly one"],
    [{ ...base, profiles: [] }, "profiles: give at least one profile"],
    [{ ...base, source: "hf:org/repo/model.bin" }, "'model.bin' is a pickle"],
    [{ ...base, source: "hf:org/repo/model.gguf?x=.bin" }, "a ? or # is not allowed"],
    [{ ...base, source: "models/m.gguf" }, "is not a source"],
    [{ ...base, trained_context: 2048, context_length: 4096 }, "longer than the trained context"],
    [{ ...base, context_length: 2048, max_output: 4096 }, "more than the context length"],
    [{ ...base, scaling: { min: 3, max: 1 } }, "scaling.min: min 3 is more than max 1"],
    [{ ...base, on_demand: true, scaling: { min: 1, max: 2 } }, "starts at 0 replicas"],
    [{ ...base, profiles: [{ engine: "tgi" }] }, "profiles[0].engine"],
    [{ ...base, capabilities: ["chat", "dance"] }, "capabilities[1]"],
    [{ ...base, name: "bad name" }, "name:"],
    [
      { ...base, source: "/w/bge", profiles: [{ engine: "tei" }] },
      "profiles[0].engine: text-embeddings-inference does not serve chat, completions",
    ],
    [
      { ...base, capabilities: ["embeddings"], profiles: [{ engine: "trtllm" }] },
      "TensorRT-LLM does not serve embeddings",
    ],
  ];
  for (const [input, want] of cases) {
    const e = assertThrows(() => parseModel(input), AppError);
    assert(e.message.includes(want), `${want} — got: ${e.message}`);
  }
  const rr = parseModel({
    ...base,
    source: "/w/bge-rr",
    capabilities: ["rerank"],
    profiles: [{ engine: "tei" }],
  });
  assertEquals(rr.profiles[0]?.engine, "tei");
  const ok = parseModel({ ...base, source: "hf:org/repo/model.bin", allow_pickle: true });
  assertEquals(ok.allowPickle, true);
  const ext = parseModel({
    name: "gpt",
    external: { url: "https://api.example.test/v1", model: "gpt-x", api_key_file: "/k" },
  });
  assertEquals(ext.external, {
    url: "https://api.example.test/v1",
    model: "gpt-x",
    apiKeyFile: "/k",
  });
  const url = "https://api.example.test/v1";
  const several = parseModel({
    name: "gpt",
    external: { url, model: "gpt-x", api_key_files: [{ file: "/a" }, { file: "/b", weight: 3 }] },
  });
  assertEquals(several.external?.apiKeyFiles, [{ file: "/a", weight: 1 }, {
    file: "/b",
    weight: 3,
  }]);
  const both = assertThrows(() =>
    parseModel({
      name: "gpt",
      external: { url, model: "gpt-x", api_key_file: "/k", api_key_files: [{ file: "/a" }] },
    }), AppError);
  assert(both.message.includes("api_key_file or api_key_files"), both.message);
});

Deno.test("model schema: names and aliases unique across a list; YAML errors are sentences", () => {
  const e = assertThrows(
    () =>
      parseModelYaml(`models:
  - { name: a, source: /a.gguf, profiles: [{engine: llamacpp}] }
  - { name: b, aliases: [a], source: /b.gguf, profiles: [{engine: llamacpp}] }
`),
    AppError,
  );
  assert(e.message.includes("'a' names both 'a' and 'b'"), e.message);
  const y = assertThrows(() => parseModelYaml("name: [unclosed"), AppError);
  assert(y.message.includes("does not parse"), y.message);
});

Deno.test("model source: the forms", () => {
  assertEquals(parseSource("hf:Qwen/Qwen3-8B"), { kind: "hf", repo: "Qwen/Qwen3-8B" });
  assertEquals(parseSource("hf:Qwen/Qwen3-8B@main"), {
    kind: "hf",
    repo: "Qwen/Qwen3-8B",
    revision: "main",
  });
  assertEquals(parseSource("https://x.test/a/b.gguf"), {
    kind: "url",
    url: "https://x.test/a/b.gguf",
  });
  assertEquals(parseSource("/srv/m.gguf"), { kind: "path", path: "/srv/m.gguf" });
});

Deno.test("model schema: prices.batch_percent is the model's batch price, on its catalog row", () => {
  const m = parseModel({
    name: "b",
    source: "/m.gguf",
    prices: { batch_percent: 20 },
    profiles: [{ engine: "llamacpp" }],
  });
  assertEquals(m.prices.batchPercent, 20);
  // Set even when the model names no price: it is a share of the default one then.
  assertEquals(rowFromDef(m, {}, "api").priceBatchPercent, 20);
  const plain = parseModel({ name: "p", source: "/m.gguf", profiles: [{ engine: "llamacpp" }] });
  assertEquals(rowFromDef(plain, {}, "api").priceBatchPercent, null, "null: the setting's");
  assertThrows(
    () =>
      parseModel({
        name: "x",
        source: "/m.gguf",
        prices: { batch_percent: 120 },
        profiles: [{ engine: "llamacpp" }],
      }),
    AppError,
  );
});

Deno.test("model schema: the judge role names its family, which the catalog row carries", () => {
  const input = {
    name: "llama-guard",
    source: "/models/llama-guard-3-1b.gguf",
    judge: { format: "llama-guard-3" },
    profiles: [{ engine: "llamacpp", args: ["--cache-ram", "0"] }],
  };
  const m = parseModel(input);
  assertEquals(m.judge, { format: "llama-guard-3" });
  assertEquals(rowFromDef(m, {}, "api").judge, "llama-guard-3");
  const { judge: _, ...plain } = input;
  assertEquals(rowFromDef(parseModel(plain), {}, "api").judge, null);
  const e = assertThrows(
    () => parseModel({ ...input, judge: { format: "shieldgemma" } }),
    AppError,
  );
  assert(e.message.includes("judge"), e.message);
});
