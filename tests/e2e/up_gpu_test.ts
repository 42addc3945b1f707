/**
 * `up --model X.gguf` on a GPU machine uses the GPU: `up`'s own node reports its cards exactly as
 * a joined node does (here the stub NVML the tests compile, named the way an agent is told,
 * LLMGW_NVML_LIBRARY), and the model is declared with the cards its plan says hold it, so the
 * replica lands on a card and llama-server is started with its layers offloaded (-ngl). The
 * llama-server is a stand-in recording its argv and CUDA_VISIBLE_DEVICES (no GPU here).
 */
import { assertEquals } from "../assert.ts";
import { eventually } from "../helpers/llmgw_process.ts";
import { startClusterControlPlane } from "../helpers/control_plane.ts";
import { fixture } from "../helpers/fixtures.ts";
import { type LocalNode, startLocalNode } from "../../appliance/local_node.ts";
import { buildStubNvml } from "../../agent/hardware/testdata/build_stub_nvml.ts";

const gguf = fixture("tiny-random-llama.gguf");

Deno.test({
  name: "llmgw up: its node reports the stub cards and its GGUF's replica lands on one, offloaded",
  ignore: !gguf,
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const root = await Deno.makeTempDir({ prefix: "llmgw-up-gpu-" });
  const stub = await buildStubNvml(root);
  const record = `${root}/llama-argv.txt`;
  const llama = `${root}/llama-server`;
  await Deno.writeTextFile(
    llama,
    `#!/bin/sh\nif [ "$1" = "--version" ]; then echo "version: 4700 (abc1234)" >&2; exit 0; fi\n` +
      `{ echo "CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES"; printf '%s\\n' "$@"; } > "${record}.tmp"\n` +
      `mv "${record}.tmp" "${record}"\nexec sleep 300\n`,
  );
  await Deno.chmod(llama, 0o755);
  const c = await startClusterControlPlane(root, {
    flags: {
      "reconciler-interval-ms": "300",
      "nodes-heartbeat-ms": "300",
      "engines-llama-server": llama,
    },
  });
  const { cp, config, logger } = c;
  let node: LocalNode | undefined;
  try {
    node = await startLocalNode(
      cp,
      config,
      { name: "tiny", engine: "llamacpp", source: gguf!, description: null },
      logger,
      { env: { LLMGW_NVML_LIBRARY: stub, LLMGW_NVIDIA_SMI: `${root}/absent-nvidia-smi` } },
    );
    // It never gets ready (the stand-in answers nothing); what matters is how it was started.
    node.ready.catch(() => {});
    const reported = await cp.deps.nodes!.hub.get("local");
    const cards = (reported.gpu as { gpus?: { name: string }[] } | undefined)?.gpus ?? [];
    assertEquals(
      cards.map((g) => g.name),
      ["NVIDIA GeForce RTX 4090", "NVIDIA H100 80GB HBM3"],
      "the local node reports the cards as a joined node does",
    );
    const def = cp.deps.catalog.get("tiny")!.def as { profiles: { gpus: number }[] };
    assertEquals(def.profiles[0]!.gpus, 1, "the fewest cards that hold it");
    const argv = await eventually("llama-server started", async () => {
      try {
        return (await Deno.readTextFile(record)).trimEnd().split("\n");
      } catch {
        return undefined;
      }
    }, 30_000);
    const replica = cp.deps.modelServices!.replicas("tiny")[0]!;
    assertEquals(replica.gpus.length, 1, JSON.stringify(replica));
    assertEquals(argv[0], `CUDA_VISIBLE_DEVICES=${replica.gpus[0]}`);
    assertEquals(argv.slice(argv.indexOf("-ngl"), argv.indexOf("-ngl") + 2), ["-ngl", "999"]);
  } finally {
    await node?.stop().catch(() => {});
    await c.close();
  }
});
