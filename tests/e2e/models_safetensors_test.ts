/**
 * Safetensors models as vLLM serves them. The set's config.json (read from the pinned files of an
 * hf: set, or from a local folder) gives the shape the estimate, the plan and the
 * tensor-parallel rule use; and vLLM is started as its documented CLI takes a model,
 * `vllm serve <model_dir>` with the folder (config and tokenizer beside the weights), never
 * one .safetensors file. The vLLM here is a stand-in that records its argv and checks it against
 * the documented flags: this machine has no real vLLM (nor a GPU; the stub NVML stands in).
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { eventually, quickAgentFlags } from "../helpers/llmgw_process.ts";
import { quickClusterFlags, startClusterControlPlane } from "../helpers/control_plane.ts";
import { generatedBytes, startFakeHub } from "../helpers/fake_hf.ts";
import { buildStubNvml } from "../../agent/hardware/testdata/build_stub_nvml.ts";
import type { ModelFacts } from "../../server/models/memory_estimate.ts";

// A grouped-query model with 3 KV heads, in float32 (so its KV cache takes 4 bytes an element).
const config = {
  architectures: ["LlamaForCausalLM"],
  num_hidden_layers: 4,
  num_attention_heads: 6,
  num_key_value_heads: 3,
  hidden_size: 384,
  max_position_embeddings: 2048,
  torch_dtype: "float32",
};
const setFiles = () => ({
  "model.safetensors": generatedBytes(200_000, 1),
  "config.json": new TextEncoder().encode(JSON.stringify(config)),
  "tokenizer.json": new TextEncoder().encode('{"version":"1.0"}'),
});

Deno.test({
  name:
    "safetensors: the pinned set's config.json shapes the model; gpus 2 is refused for 3 KV heads",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const root = await Deno.makeTempDir({ prefix: "llmgw-st-hf-" });
  const hub = startFakeHub();
  hub.putRepo("acme/vl", setFiles());
  const c = await startClusterControlPlane(root, {
    flags: { ...quickClusterFlags, "weights-hf-endpoint": hub.url },
  });
  try {
    await c.addModel(`
name: vl
source: hf:acme/vl/model.safetensors
scaling: { min: 0, max: 1 }
profiles: [{ engine: vllm, gpus: 1 }]
`);
    const e = c.cp.deps.catalog.get("vl")!;
    const facts = e.facts as ModelFacts;
    assertEquals(
      { ...facts },
      {
        architecture: "LlamaForCausalLM",
        layers: 4,
        heads: 6,
        kvHeads: 3,
        hiddenSize: 384,
        headDim: 64,
        trainedContext: 2048,
        dtype: "float32",
        weightsBytes: 200_000,
      },
    );
    // One file named, the set pinned: vLLM is given the version's folder, not the file.
    const origin = e.origin as { files: { path: string }[]; entry?: string };
    assertEquals(origin.entry, undefined);
    assertEquals(
      origin.files.map((f) => f.path).sort(),
      ["config.json", "model.safetensors", "tokenizer.json"],
    );
    const gpus = await c.ctl("model", "gpus", "vl", "2");
    assertEquals(gpus.code, 1, "ctl model gpus vl 2 is refused");
    const why = await c.admin("POST", "models/vl/gpus", { gpus: 2 });
    assertEquals(why.status, 400);
    assertMatch(JSON.stringify(why.body), /2 cards cannot split 3 KV heads/);

    const plan = await c.admin("POST", "models/plan", { source: "hf:acme/vl", name: "vl2" });
    assertEquals(plan.status, 200, JSON.stringify(plan.body));
    assertEquals(plan.body.trainedContext, 2048);
    assertEquals(plan.body.context, 2048, "the context is capped at the trained one");
  } finally {
    await c.close();
    await hub.close();
  }
});

/** vLLM's documented `serve` options this build may pass (docs.vllm.ai, "vllm serve"). */
const documented = new Set([
  "--host",
  "--port",
  "--served-model-name",
  "--max-model-len",
  "--max-num-seqs",
  "--tensor-parallel-size",
  "--gpu-memory-utilization",
  "--load-format",
  "--task",
  "--enable-prefix-caching",
]);

Deno.test({
  name: "safetensors: vLLM is started as `vllm serve <model_dir>` with the set's folder",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const root = await Deno.makeTempDir({ prefix: "llmgw-st-vllm-" });
  const stub = await buildStubNvml(root);
  const dir = `${root}/models/vl`;
  await Deno.mkdir(dir, { recursive: true });
  for (const [name, bytes] of Object.entries(setFiles())) {
    await Deno.writeFile(`${dir}/${name}`, bytes);
  }
  const argvFile = `${root}/vllm-argv.json`;
  const vllm = `${root}/vllm`;
  // Prints a version like vLLM's; on `serve`, records its argv and waits to be stopped.
  await Deno.writeTextFile(
    vllm,
    `#!/bin/sh\nif [ "$1" = "--version" ]; then echo 0.6.3; exit 0; fi\n` +
      `printf '%s\\n' "$@" > "${argvFile}.tmp" && mv "${argvFile}.tmp" "${argvFile}"\nexec sleep 300\n`,
  );
  await Deno.chmod(vllm, 0o755);
  const c = await startClusterControlPlane(root, { flags: { ...quickClusterFlags } });
  try {
    await c.joinAgent("gpu", {
      nvml: stub,
      args: [...quickAgentFlags, "--engines-vllm", vllm],
    });
    await eventually("the node reporting vllm", async () => {
      const nodes = (await c.admin("GET", "nodes")).body.data as {
        engines?: { name: string }[];
      }[];
      return nodes[0]?.engines?.some((e) => e.name === "vllm") ? true : undefined;
    }, 30_000);
    await c.addModel(`
name: vl
source: ${dir}/model.safetensors
context_length: 1024
slots: 4
profiles: [{ engine: vllm, gpus: 1 }]
`);
    const facts = c.cp.deps.catalog.get("vl")!.facts as ModelFacts;
    assertEquals([facts.kvHeads, facts.layers, facts.dtype], [3, 4, "float32"]);
    const argv = await eventually("vllm started", async () => {
      try {
        return (await Deno.readTextFile(argvFile)).trimEnd().split("\n");
      } catch {
        return undefined;
      }
    }, 30_000);
    const port = argv[argv.indexOf("--port") + 1]!;
    assertEquals(argv, [
      "serve",
      dir,
      "--host",
      "127.0.0.1",
      "--port",
      port,
      "--served-model-name",
      "vl",
      // A chat model: vLLM keeps shared prompt prefixes (automatic prefix caching).
      "--enable-prefix-caching",
      "--max-model-len",
      "1024",
      "--max-num-seqs",
      "4",
    ]);
    assertMatch(port, /^\d+$/);
    // The positional model is a folder holding config and tokenizer; every option is documented.
    assert((await Deno.stat(`${argv[1]}/config.json`)).isFile);
    assert((await Deno.stat(`${argv[1]}/tokenizer.json`)).isFile);
    for (const a of argv.slice(2).filter((x) => x.startsWith("--"))) {
      assert(documented.has(a), `${a} is not among vllm serve's documented options`);
    }
  } finally {
    await c.close();
  }
});
