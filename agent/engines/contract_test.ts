/**
 * Every built-in adapter against one contract (testdata/adapter_contract.ts), one table row per
 * engine. Metrics fixtures: llama.cpp's was captured from a real llama-server; vLLM's follow its
 * v0 and v1 exporters' output; SGLang's, TensorRT-LLM's and TEI's follow their documented pages
 * (names as published, values made up). Live runs: the simulated engine always; llama.cpp when
 * LLAMA_SERVER names a binary and the tiny GGUF fixture is found (LLMGW_FIXTURES or
 * ../shared/fixtures); SGLang, TensorRT-LLM and TEI against a fake that speaks each one's dialect
 * (testdata/dialect_engine.ts), since none runs here; vLLM needs a GPU and is skipped.
 */
import { builtinAdapters } from "./builtin_adapters.ts";
import { sglangKeyEnv, trtllmKeyEnv } from "./python_launch.ts";
import {
  type ContractCase,
  detectContract,
  liveContract,
  metricsContract,
  planContract,
  readinessContract,
} from "./testdata/adapter_contract.ts";

const testdata = new URL("./testdata/", import.meta.url);
const read = (name: string) => Deno.readTextFileSync(new URL(name, testdata));
const fixtures = Deno.env.get("LLMGW_FIXTURES") ??
  new URL("../../../shared/fixtures/", import.meta.url).pathname;
const gguf = `${fixtures.replace(/\/?$/, "/")}tiny-random-llama.gguf`;
const llamaServer = Deno.env.get("LLAMA_SERVER");
const ggufThere = (() => {
  try {
    return Deno.statSync(gguf).isFile;
  } catch {
    return false;
  }
})();
const llamaSkip = !llamaServer
  ? "set LLAMA_SERVER to a llama-server binary to run it"
  : !ggufThere
  ? `the fixture ${gguf} is missing (set LLMGW_FIXTURES)`
  : "";

// The sim speaks llama-server's metrics dialect, so both read the same sample the same way.
const llamacppMetrics: ContractCase["metrics"] = {
  text: read("llamacpp_metrics.txt"),
  expect: {
    known: true,
    kvCacheUsage: 0.00390625,
    running: 1,
    waiting: 0,
    decodeTokensPerSecond: 0,
    promptTokensPerSecond: 2.24719,
  },
};

const cases: ContractCase[] = [
  {
    adapter: builtinAdapters.sim,
    metrics: llamacppMetrics,
    live: {
      spec: {
        model: "contract-model",
        args: ["--tokens-per-second", "20"],
        readyTimeoutMs: 60_000,
      },
      busy: {
        path: "/v1/completions",
        body: { model: "contract-model", prompt: "hi", max_tokens: 200, stream: true },
      },
    },
  },
  {
    adapter: builtinAdapters.llamacpp,
    modelPath: "/var/lib/llmgw/weights/m.gguf",
    metrics: llamacppMetrics,
    binary: {
      name: "llama-server",
      versionOutput: "version: 6134 (9c4a2d1b)",
      version: "b6134 (9c4a2d1b)",
    },
    live: llamaSkip ? { skip: llamaSkip } : {
      spec: {
        model: "contract-model",
        modelPath: gguf,
        binary: llamaServer!,
        profile: { contextLength: 2048, parallel: 2, gpuLayers: 0 },
        readyTimeoutMs: 120_000,
      },
      busy: {
        path: "/completion",
        body: { prompt: "Hello", n_predict: 1500, ignore_eos: true, stream: true },
      },
    },
  },
  {
    adapter: builtinAdapters.vllm,
    modelPath: "Qwen/Qwen2.5-7B-Instruct",
    metrics: {
      text: read("vllm_v1_metrics.txt"),
      expect: { known: true, kvCacheUsage: 0.375, running: 7, waiting: 1 },
    },
    binary: { name: "vllm", versionOutput: "0.10.1.1", version: "0.10.1.1" },
    live: { skip: "vLLM needs an NVIDIA GPU and is not installed on test machines" },
  },
  {
    adapter: builtinAdapters.sglang,
    modelPath: "Qwen/Qwen2.5-7B-Instruct",
    metrics: {
      text: read("sglang_metrics.txt"),
      // Two tensor-parallel ranks repeat each gauge: rank 0's is the reading, not their sum.
      expect: {
        known: true,
        kvCacheUsage: 0.28,
        running: 5,
        waiting: 2364,
        decodeTokensPerSecond: 86.50814177726902,
      },
    },
    binary: { name: "python3", versionOutput: "0.5.2", version: "0.5.2" },
    live: {
      spec: { model: "contract-model", modelPath: "/w/qwen", readyTimeoutMs: 60_000 },
      busy: { path: "/v1/completions", body: { model: "contract-model", prompt: "hi" } },
      fake: { name: "python3", dialect: "sglang", keyEnv: sglangKeyEnv },
    },
  },
  {
    adapter: builtinAdapters.trtllm,
    modelPath: "/var/lib/llmgw/weights/qwen3-8b/",
    metrics: {
      text: read("trtllm_metrics.txt"),
      expect: { known: true, kvCacheUsage: 0.62, running: 6, waiting: 3 },
    },
    binary: {
      name: "python3",
      versionOutput: "[TensorRT-LLM] TensorRT-LLM version: 1.0.0\n1.0.0",
      version: "1.0.0",
    },
    live: {
      spec: { model: "contract-model", modelPath: "/w/qwen3", readyTimeoutMs: 60_000 },
      busy: { path: "/v1/chat/completions", body: { model: "contract-model", messages: [] } },
      fake: { name: "python3", dialect: "trtllm", keyEnv: trtllmKeyEnv },
    },
  },
  {
    adapter: builtinAdapters.tei,
    modelPath: "/var/lib/llmgw/weights/bge-small/",
    hostFlag: "--hostname",
    metrics: {
      text: read("tei_metrics.txt"),
      // 152 requests started, 147 succeeded, 1 refused: 4 in flight; 2 queued for a batch.
      expect: { known: true, running: 4, waiting: 2 },
    },
    binary: {
      name: "text-embeddings-router",
      versionOutput: "text-embeddings-router 1.8.2",
      version: "1.8.2",
    },
    live: {
      spec: { model: "contract-model", modelPath: "/w/bge", readyTimeoutMs: 60_000 },
      busy: { path: "/v1/embeddings", body: { model: "contract-model", input: "hi" } },
      fake: { name: "text-embeddings-router", dialect: "tei", keyEnv: "API_KEY" },
    },
  },
];

for (const c of cases) {
  const name = c.adapter.name;
  Deno.test(`contract ${name}: key in the environment only, host and port as given`, () =>
    planContract(c));
  Deno.test(`contract ${name}: readiness judged by status and body`, () => readinessContract(c));
  Deno.test(`contract ${name}: its /metrics text reads as a known load`, () => metricsContract(c));
  Deno.test(`contract ${name}: detection and version, or what is missing`, () => detectContract(c));
  const skip = "skip" in c.live ? c.live.skip : "";
  if (skip) console.warn(`contract ${name}: live part skipped: ${skip}`);
  Deno.test({
    name: `contract ${name}: ready, known load while busy, nothing left once stopped${
      skip ? ` (skipped: ${skip})` : ""
    }`,
    ignore: !!skip,
    fn: () => liveContract(c),
  });
}

Deno.test("contract vllm: the older exporter's names (gpu_cache_usage_perc) read too", () =>
  metricsContract({
    ...cases[2]!,
    metrics: {
      text: read("vllm_v0_metrics.txt"),
      expect: { known: true, kvCacheUsage: 0.4375, running: 3, waiting: 2 },
    },
  }));
