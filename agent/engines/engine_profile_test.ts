/** Profiles become each engine's flags; hub ids are pinned to safetensors; the gate's reach. */
import { assertEquals, assertThrows } from "../../tests/assert.ts";
import { builtinAdapters } from "./builtin_adapters.ts";
import type { PlanInput } from "./engine_adapter.ts";
import { LaunchPlanError, UnsafeFlagError } from "../../core/engines/launch_plan_error.ts";
import { isHubId, parseVllmVersion } from "./vllm.ts";
import { parseLlamacppVersion } from "./llamacpp.ts";

const input = (over: Partial<PlanInput> = {}): PlanInput => ({
  model: "m",
  modelPath: "/w/m.gguf",
  args: [],
  allowFlags: [],
  host: "10.0.0.5",
  port: 30001,
  apiKey: "k",
  ...over,
});
const profile = {
  contextLength: 8192,
  parallel: 4,
  gpuLayers: 99,
  tensorParallel: 2,
  gpuMemoryFraction: 0.85,
} as const;

Deno.test("a profile in llama.cpp's words: -c, -np, -ngl, the chat template, and embedding/rerank modes", () => {
  const args = builtinAdapters.llamacpp.plan(input({ profile })).args;
  assertEquals(args.slice(args.indexOf("--cache-reuse") + 2), [
    "-c",
    "8192",
    "-np",
    "4",
    "-ngl",
    "99",
    "--jinja",
  ]);
  const emb = builtinAdapters.llamacpp.plan(input({ profile: { mode: "embedding" } })).args;
  assertEquals(emb.includes("--embeddings"), true);
  assertEquals(emb.includes("--jinja"), false, "an embedding model has no chat template to use");
  const rr = builtinAdapters.llamacpp.plan(input({ profile: { mode: "rerank" } })).args;
  assertEquals(rr.includes("--reranking"), true);
  assertEquals(rr.includes("--jinja"), false);
  assertEquals(args.slice(args.indexOf("--host"), args.indexOf("--host") + 4), [
    "--host",
    "10.0.0.5",
    "--port",
    "30001",
  ]);
});

Deno.test("a profile in vLLM's words, and the embed/score tasks", () => {
  const args = builtinAdapters.vllm.plan(input({ modelPath: "/w/dir", profile })).args;
  assertEquals(args.slice(args.indexOf("m") + 1), [
    "--enable-prefix-caching",
    "--max-model-len",
    "8192",
    "--max-num-seqs",
    "4",
    "--tensor-parallel-size",
    "2",
    "--gpu-memory-utilization",
    "0.85",
  ]);
  const emb = builtinAdapters.vllm.plan(
    input({ modelPath: "/w/d", profile: { mode: "embedding" } }),
  );
  assertEquals(emb.args.slice(-2), ["--task", "embed"]);
  const sim = builtinAdapters.sim.plan(input({ profile: { parallel: 3 } })).args;
  assertEquals(sim.slice(sim.indexOf("--slots"), sim.indexOf("--slots") + 2), ["--slots", "3"]);
  assertThrows(
    () => builtinAdapters.sim.plan(input({ profile: { mode: "rerank" } })),
    LaunchPlanError,
  );
});

Deno.test("vLLM: a hub id is read as safetensors only, unless the model allows pickle", () => {
  const hub = (over: Partial<PlanInput>) =>
    builtinAdapters.vllm.plan(input({ modelPath: "Qwen/Qwen2.5-7B-Instruct", ...over })).args;
  assertEquals(hub({}).includes("safetensors"), true);
  assertEquals(hub({ profile: { allowPickle: true } }).includes("--load-format"), false);
  for (const path of ["/var/lib/llmgw/weights/abc/", "./local", "http://m/q/v/", "q.gguf"]) {
    assertEquals(isHubId(path), false, path);
    assertEquals(
      builtinAdapters.vllm.plan(input({ modelPath: path })).args.includes("--load-format"),
      false,
    );
  }
  assertEquals(isHubId("Qwen/Qwen2.5-7B-Instruct"), true);
  assertEquals(isHubId("org/name:Q4_K_M"), false, "a GGUF inside a repository");
  assertEquals(isHubId("a/b/c"), false);
  assertEquals(isHubId("org/name", () => true), false, "an existing path is a path");
});

Deno.test("the gate: file readers, fetchers, code loaders, config smuggling, spellings and prefixes", () => {
  const refused: Array<["llamacpp" | "vllm", string]> = [
    ["vllm", "--config"],
    ["vllm", "--conf=x.yaml"],
    ["vllm", "--trust-remote-c"],
    ["vllm", "--trust_remote_code"],
    ["vllm", "--revision"],
    ["vllm", "--tokenizer_revision"],
    ["vllm", "--worker-extension-cls"],
    ["vllm", "--logits-processors"],
    ["vllm", "--generation-config"],
    ["vllm", "--download_dir"],
    ["vllm", "--speculative-config"],
    ["llamacpp", "--embd-bge-small-en-default"],
    ["llamacpp", "--fim-qwen-7b-default"],
    ["llamacpp", "-hfrv"],
    ["llamacpp", "-lv"],
    ["llamacpp", "--verbose-prompt"],
    ["llamacpp", "--system-prompt-file"],
  ];
  for (const [engine, flag] of refused) {
    const e = assertThrows(
      () => builtinAdapters[engine].plan(input({ modelPath: "/m", args: [flag, "x"] })),
      UnsafeFlagError,
    );
    assertEquals(e.flag, flag.split("=")[0], `${engine} ${flag}`);
  }
  // llama.cpp takes no abbreviations, so a beginning of a refused flag is its own flag.
  builtinAdapters.llamacpp.plan(input({ args: ["--chat-template", "chatml", "--log-disable"] }));
  builtinAdapters.vllm.plan(input({
    modelPath: "/m",
    args: ["--enable-prefix-caching", "--tokenizer-mode", "mistral", "--max_model_len", "4096"],
  }));
});

Deno.test("versions as the engines print them", () => {
  assertEquals(
    parseLlamacppVersion("version: 6134 (9c4a2d1b)\nbuilt with cc 12.2.0 for x86_64"),
    "b6134 (9c4a2d1b)",
  );
  assertEquals(parseLlamacppVersion("version: 0 (unknown)\nbuilt with cc"), undefined);
  assertEquals(parseLlamacppVersion("bash: llama-server: not found"), undefined);
  assertEquals(
    parseVllmVersion(
      "INFO 05-01 12:00:00 [__init__.py:244] Automatically detected platform cuda.\n0.10.1.1\n",
    ),
    "0.10.1.1",
  );
  assertEquals(parseVllmVersion("Traceback (most recent call last):\nImportError: x\n"), undefined);
});

Deno.test("llama.cpp's host-memory prompt cache: bounded on builds that have it, never on older or unnumbered ones", () => {
  const plan = (version: string | undefined, args: string[] = []) =>
    builtinAdapters.llamacpp.plan(input({ args, ...(version ? { version } : {}) })).args;
  const ram = (args: string[]) =>
    args.slice(args.indexOf("--cache-ram"), args.indexOf("--cache-ram") + 2);
  // The build here prints "version: 0 (unknown)": no number, so no flag it may not have.
  assertEquals(plan(undefined).includes("--cache-ram"), false);
  assertEquals(plan("b6134 (9c4a2d1b)").includes("--cache-ram"), false);
  assertEquals(ram(plan("b7100 (0a1b2c3d)")), ["--cache-ram", "2048"]);
  // The catalog's own size wins, and is not doubled.
  const own = plan("b7100 (0a1b2c3d)", ["--cache-ram", "0"]);
  assertEquals(own.filter((a) => a === "--cache-ram").length, 1);
  assertEquals(own.slice(-2), ["--cache-ram", "0"]);
  // An older build would refuse the flag at start; the plan says so first.
  const e = assertThrows(() => plan("b6134 (9c4a2d1b)", ["-cram", "1024"]), LaunchPlanError);
  assertEquals(e.message.includes("b6800"), true, e.message);
});
