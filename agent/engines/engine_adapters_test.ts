import { deepStrictEqual as assertEquals, ok as assert, throws } from "node:assert/strict";
import { engineNames, engineTraits } from "../../core/engines/engine_traits.ts";
import { builtinAdapters } from "./builtin_adapters.ts";
import type { PlanInput } from "./engine_adapter.ts";
import { readyByStatusAndBody } from "./engine_adapter.ts";
import { LaunchPlanError, UnsafeFlagError } from "../../core/engines/launch_plan_error.ts";

const key = "sk-llmgw-replica-secret-123";
const input = (over: Partial<PlanInput> = {}): PlanInput => ({
  model: "tiny",
  modelPath: "/var/lib/llmgw/weights/tiny.gguf",
  args: [],
  allowFlags: [],
  host: "127.0.0.1",
  port: 8123,
  apiKey: key,
  ...over,
});

Deno.test("llama.cpp's plan names the model, address, alias, metrics, slots and chat template, and keeps the key out of argv", () => {
  const plan = builtinAdapters.llamacpp.plan(input({ args: ["--ctx-size", "2048"] }));
  assertEquals(plan.cmd, "llama-server");
  assertEquals(plan.args, [
    "-m",
    "/var/lib/llmgw/weights/tiny.gguf",
    "--host",
    "127.0.0.1",
    "--port",
    "8123",
    "--alias",
    "tiny",
    "--metrics",
    "--slots",
    "--slot-save-path",
    "./",
    "--cache-reuse",
    "256",
    "--jinja",
    "--ctx-size",
    "2048",
  ]);
  assertEquals(plan.env, { LLAMA_API_KEY: key });
  assert(!plan.args.join(" ").includes(key));
});

Deno.test("llama.cpp takes its binary from the spec and refuses a spec without a GGUF", () => {
  assertEquals(
    builtinAdapters.llamacpp.plan(input({ binary: "/opt/llama/llama-server" })).cmd,
    "/opt/llama/llama-server",
  );
  const { modelPath: _, ...noPath } = input();
  throws(() => builtinAdapters.llamacpp.plan(noPath), LaunchPlanError);
});

Deno.test("vLLM's plan serves the model under its name with the key in VLLM_API_KEY", () => {
  const plan = builtinAdapters.vllm.plan(
    input({ modelPath: "Qwen/Qwen2.5-7B-Instruct", args: ["--max-model-len", "4096"] }),
  );
  assertEquals(plan.cmd, "vllm");
  assertEquals(plan.args, [
    "serve",
    "Qwen/Qwen2.5-7B-Instruct",
    "--host",
    "127.0.0.1",
    "--port",
    "8123",
    "--served-model-name",
    "tiny",
    "--enable-prefix-caching",
    // A hub id: pinned to safetensors, since pickle weights run code when loaded.
    "--load-format",
    "safetensors",
    "--max-model-len",
    "4096",
  ]);
  assertEquals(plan.env, { VLLM_API_KEY: key });
});

Deno.test("the simulated engine is this program's sim-engine command with the key in its environment", () => {
  const plan = builtinAdapters.sim.plan(input({ args: ["--tokens-per-second", "500"] }));
  assertEquals(plan.cmd, Deno.execPath());
  const i = plan.args.indexOf("sim-engine");
  assert(i >= 0, plan.args.join(" "));
  assertEquals(plan.args.slice(i), [
    "sim-engine",
    "--port",
    "8123",
    "--host",
    "127.0.0.1",
    "--model",
    "tiny",
    "--tokens-per-second",
    "500",
  ]);
  // From source: `deno run -A <repo>/main.ts`, found relative to the code, not the test file.
  assert(plan.args.includes("-A"));
  assert(plan.args.some((a) => a.endsWith("/main.ts") && Deno.statSync(a).isFile));
  assertEquals(plan.env.LLAMA_API_KEY, key);
  assert(!plan.args.join(" ").includes(key));
});

Deno.test("the flag gate refuses flags the agent sets, credentials, and file access, naming the flag", () => {
  const refused: Array<[keyof typeof builtinAdapters, string[], string]> = [
    ["llamacpp", ["--host", "0.0.0.0"], "--host"],
    ["llamacpp", ["--port=9"], "--port"],
    ["llamacpp", ["--api-key", "x"], "--api-key"],
    ["llamacpp", ["--api_key_file", "/etc/k"], "--api_key_file"],
    ["llamacpp", ["-m", "/etc/passwd"], "-m"],
    ["llamacpp", ["-hf", "org/repo"], "-hf"],
    ["llamacpp", ["-mu", "http://x"], "-mu"],
    ["llamacpp", ["--log-file", "/tmp/x"], "--log-file"],
    ["llamacpp", ["--ssl-key-file", "/k"], "--ssl-key-file"],
    ["llamacpp", ["--ctx-size", "512", "--slot-save-path", "/tmp"], "--slot-save-path"],
    ["vllm", ["--trust_remote_code"], "--trust_remote_code"],
    ["vllm", ["--trust-remote"], "--trust-remote"],
    ["vllm", ["--load_format", "pt"], "--load_format"],
    ["vllm", ["--load-form=pt"], "--load-form"],
    ["vllm", ["--api-key", "x"], "--api-key"],
    ["vllm", ["--po", "1"], "--po"],
    ["sim", ["--model", "other"], "--model"],
  ];
  for (const [engine, args, flag] of refused) {
    throws(
      () => builtinAdapters[engine].plan(input({ modelPath: "/m", args })),
      (e: unknown) => e instanceof UnsafeFlagError && e.flag === flag && e.message.includes(flag),
      `${engine} ${args.join(" ")}`,
    );
  }
});

Deno.test("the flag gate lets ordinary tuning flags through", () => {
  builtinAdapters.llamacpp.plan(
    input({ args: ["--chat-template", "chatml", "-c", "2048", "--temp", "-1"] }),
  );
  builtinAdapters.vllm.plan(input({
    modelPath: "/m",
    args: [
      "--max-model-len",
      "8192",
      "--tokenizer-mode",
      "mistral",
      "--gpu-memory-utilization=0.9",
    ],
  }));
});

Deno.test("trust-remote-code passes only when the catalog allows it, and credentials never do", () => {
  const vllm = builtinAdapters.vllm;
  vllm.plan(
    input({ modelPath: "/m", args: ["--trust-remote-code"], allowFlags: ["--trust-remote-code"] }),
  );
  throws(
    () =>
      vllm.plan(input({ modelPath: "/m", args: ["--api-key", "k"], allowFlags: ["--api-key"] })),
    UnsafeFlagError,
  );
});

Deno.test("readiness is the status code, unless a 200 body says it is still loading", () => {
  assertEquals(readyByStatusAndBody(200, ""), true);
  assertEquals(readyByStatusAndBody(200, "OK"), true);
  assertEquals(readyByStatusAndBody(200, '{"status":"ok"}'), true);
  assertEquals(readyByStatusAndBody(200, '{"status":"loading","progress":0.4}'), false);
  assertEquals(
    readyByStatusAndBody(503, '{"error":{"code":503,"message":"Loading model"}}'),
    false,
  );
  assertEquals(readyByStatusAndBody(401, ""), false);
});

Deno.test("the built-in adapters are the engines core's traits list, named and GPU-bound as their traits say", () => {
  assertEquals(Object.keys(builtinAdapters).sort(), [...engineNames].sort());
  for (const name of engineNames) {
    assertEquals(builtinAdapters[name].name, engineTraits[name].name);
    assertEquals(builtinAdapters[name].requirements.gpu, engineTraits[name].gpu);
  }
});

Deno.test("SGLang's plan runs launch_server through the launcher, metrics on, key in SGLANG_API_KEY only", () => {
  const plan = builtinAdapters.sglang.plan(
    input({ modelPath: "/w/qwen", profile: { tensorParallel: 2, contextLength: 4096 } }),
  );
  assertEquals(plan.cmd, "python3");
  assertEquals(plan.args[0], "-c");
  assert(plan.args[1]!.includes('run_module("sglang.launch_server"'));
  assertEquals(plan.args.slice(2), [
    "--model-path",
    "/w/qwen",
    "--host",
    "127.0.0.1",
    "--port",
    "8123",
    "--served-model-name",
    "tiny",
    "--enable-metrics",
    "--context-length",
    "4096",
    "--tp-size",
    "2",
  ]);
  assertEquals(plan.env, { SGLANG_API_KEY: key });
  assert(!plan.args.join(" ").includes(key));
  // RadixAttention stays on: nothing in the plan turns the prefix cache off.
  assert(!plan.args.some((a) => a.includes("radix")));
  assert(
    builtinAdapters.sglang.plan(input({ modelPath: "Qwen/Qwen2.5-7B" })).args.includes(
      "safetensors",
    ),
  );
});

Deno.test("trtllm-serve runs behind the key guard, its Prometheus page at /prometheus/metrics", () => {
  const plan = builtinAdapters.trtllm.plan(
    input({
      modelPath: "/w/q3",
      profile: { tensorParallel: 4, parallel: 8, gpuMemoryFraction: 0.9 },
    }),
  );
  assertEquals(plan.cmd, "python3");
  assert(plan.args[1]!.includes("from tensorrt_llm.commands.serve import main"));
  assertEquals(plan.args.slice(2), [
    "/w/q3",
    "--host",
    "127.0.0.1",
    "--port",
    "8123",
    "--served_model_name",
    "tiny",
    "--max_batch_size",
    "8",
    "--tp_size",
    "4",
  ]);
  assertEquals(plan.env, { TRTLLM_API_KEY: key });
  assertEquals(builtinAdapters.trtllm.metricsPath, "/prometheus/metrics");
  throws(
    () => builtinAdapters.trtllm.plan(input({ profile: { mode: "embedding" } })),
    LaunchPlanError,
  );
  throws(() => builtinAdapters.trtllm.plan(input({ modelPath: "Qwen/Qwen3-8B" })), LaunchPlanError);
});

Deno.test("TEI's plan binds --hostname, serves under the model's name, key in API_KEY; a hub id is refused", () => {
  const plan = builtinAdapters.tei.plan(input({ modelPath: "/w/bge", profile: { parallel: 16 } }));
  assertEquals(plan.cmd, "text-embeddings-router");
  assertEquals(plan.args, [
    "--model-id",
    "/w/bge",
    "--hostname",
    "127.0.0.1",
    "--port",
    "8123",
    "--served-model-name",
    "tiny",
    "--max-batch-requests",
    "16",
  ]);
  assertEquals(plan.env, { API_KEY: key });
  throws(
    () => builtinAdapters.tei.plan(input({ modelPath: "BAAI/bge-small-en" })),
    LaunchPlanError,
  );
});

Deno.test("the new engines' gates: what each refuses, spelled its own way, and what passes", () => {
  const refused: Array<["sglang" | "trtllm" | "tei", string[], string]> = [
    ["sglang", ["--load-format", "pt"], "--load-format"],
    ["sglang", ["--load_format=pt"], "--load_format"],
    ["sglang", ["--model-path", "/etc"], "--model-path"],
    ["sglang", ["--trust-remote"], "--trust-remote"],
    ["sglang", ["--disable-radix-cache"], "--disable-radix-cache"],
    ["sglang", ["--log-requests"], "--log-requests"],
    ["sglang", ["--api-key", "k"], "--api-key"],
    ["sglang", ["--dist-init-addr", "10.0.0.1:5000"], "--dist-init-addr"],
    ["trtllm", ["--extra_llm_api_options", "/tmp/x.yaml"], "--extra_llm_api_options"],
    ["trtllm", ["--trust_remote_code"], "--trust_remote_code"],
    ["trtllm", ["--tokenizer", "/elsewhere"], "--tokenizer"],
    ["trtllm", ["--host", "0.0.0.0"], "--host"],
    ["tei", ["--hf-token", "x"], "--hf-token"],
    ["tei", ["--revision", "main"], "--revision"],
    ["tei", ["--hostname", "0.0.0.0"], "--hostname"],
    ["tei", ["--uds-path", "/tmp/s"], "--uds-path"],
  ];
  for (const [engine, args, flag] of refused) {
    throws(
      () => builtinAdapters[engine].plan(input({ modelPath: "/m", args })),
      (e: unknown) => e instanceof UnsafeFlagError && e.flag === flag,
      `${engine} ${args.join(" ")}`,
    );
  }
  builtinAdapters.sglang.plan(input({
    modelPath: "/m",
    args: ["--mem-fraction-static", "0.8", "--disable-radix-cache"],
    allowFlags: ["--disable-radix-cache"],
  }));
  // click takes whole flags only: a beginning of a refused one is not refused.
  builtinAdapters.trtllm.plan(
    input({ modelPath: "/m", args: ["--tok", "x", "--kv_cache_free_gpu_memory_fraction", "0.8"] }),
  );
  builtinAdapters.tei.plan(
    input({ modelPath: "/m", args: ["--pooling", "cls", "--auto-truncate"] }),
  );
});
