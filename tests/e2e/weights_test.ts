/**
 * Weights end to end: an in-process control plane whose hub is the fake Hugging Face hub, and one
 * agent process joined over the cluster listener (no GPU) pointed at the same hub. A model whose
 * source is `hf:org/repo/file.gguf` is pinned when added (its origin in the catalog), the node
 * fetches it (the replica goes through `fetching`, with bytes and a percent), starts the sim
 * engine on the fetched path and answers through /v1. `ctl model remove --purge` then makes the
 * node delete the file.
 */
import { assert, assertEquals } from "../assert.ts";
import { eventually, type LlmgwProcess, spawnLlmgw } from "../helpers/llmgw_process.ts";
import { generatedBytes, sha256Hex, startFakeHub } from "../helpers/fake_hf.ts";
import { systemClock } from "../../core/clock.ts";
import { createLogger } from "../../core/log.ts";
import { loadServerConfig } from "../../server/config.ts";
import { startControlPlane } from "../../server/serve.ts";
import { initDataDir } from "../../server/setup/init.ts";
import { ctlCommand } from "../../server/cli/ctl.ts";

Deno.test({
  name: "weights: an hf: model is pinned, fetched by its node with progress, started, purged",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const root = await Deno.makeTempDir({ prefix: "llmgw-weights-e2e-" });
  const hub = startFakeHub();
  const bytes = generatedBytes(3_000_000, 7);
  const commit = hub.putRepo("acme/tiny-gguf", { "tiny.gguf": bytes });
  const cpDir = `${root}/cp`;
  await initDataDir(cpDir, { clock: systemClock });
  const config = await loadServerConfig({
    flags: {
      listen: "127.0.0.1:0",
      "cluster-listen": "127.0.0.1:0",
      portal: "false",
      "nodes-heartbeat-ms": "300",
      "nodes-channel-idle-ms": "1000",
      "nodes-channel-answer-ms": "1000",
      "reconciler-interval-ms": "300",
      "weights-hf-endpoint": hub.url,
      "usage-flush-interval-ms": "50",
    },
    env: { LLMGW_DATA: cpDir },
  });
  const logs: string[] = [];
  const cp = await startControlPlane(config, {
    logger: createLogger({ level: "info", sink: (l) => logs.push(l) }),
  });
  const token = (await Deno.readTextFile(`${cpDir}/admin.token`)).trim();
  const url = cp.url;
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}/api/v1/${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: await res.json() };
  };
  const ctl = async (...args: string[]) => {
    const out: string[] = [];
    const log = console.log;
    console.log = (...a: unknown[]) => out.push(a.join(" "));
    try {
      const code = await ctlCommand.run([...args, "--url", url, "--token", token]);
      return { code, text: out.join("\n") };
    } finally {
      console.log = log;
    }
  };
  let agent: LlmgwProcess | undefined;
  try {
    const code = await cp.deps.nodes!.joinCodes.create({ labels: {}, ttlMs: 60_000 });
    agent = spawnLlmgw(
      [
        "join",
        code.code,
        "--data",
        `${root}/node`,
        "--name",
        "node",
        "--gpu-nvml-library",
        `${root}/absent-libnvidia-ml.so.1`,
        "--gpu-nvidia-smi",
        `${root}/absent-nvidia-smi`,
        "--weights-hf-endpoint",
        hub.url,
        "--channel-idle-ms",
        "1000",
        "--channel-answer-ms",
        "1000",
      ],
      {},
      "agent-node",
    );
    await eventually("the node reporting", async () => {
      const nodes = (await admin("GET", "nodes")).body.data as { state: string; engines?: [] }[];
      return nodes.length === 1 && nodes[0]!.state === "ready" && nodes[0]!.engines
        ? nodes
        : undefined;
    }, 30_000);

    const r = await admin("POST", "models", {
      yaml: `
name: tiny
source: hf:acme/tiny-gguf/tiny.gguf
profiles: [{ engine: sim, gpus: 0, memory_gb: 1, cores: 1 }]
`,
    });
    assertEquals(r.status, 201, JSON.stringify(r.body));
    // Pinned at add: the catalog holds the commit and the file's sha256.
    const entry = cp.deps.catalog.get("tiny")!;
    assertEquals(entry.origin, {
      kind: "hf",
      repo: "acme/tiny-gguf",
      commit,
      files: [{ path: "tiny.gguf", size: bytes.length, sha256: sha256Hex(bytes) }],
      entry: "tiny.gguf",
    });

    const states = new Set<string>();
    type Row = { state: string; fetched?: { bytes: number; total?: number; percent?: number } };
    const ready = await eventually("a ready replica of tiny", async () => {
      const rows = (await admin("GET", "replicas?model=tiny")).body.data as Row[];
      for (const x of rows) states.add(x.state);
      return rows.find((x) => x.state === "ready");
    }, 30_000);
    assert(states.has("fetching") || ready.fetched, `states seen: ${[...states]}`);
    assertEquals(ready.fetched, { bytes: bytes.length, total: bytes.length, percent: 100 });
    const path = `${root}/node/weights/acme/tiny-gguf/${commit}/tiny.gguf`;
    assertEquals(sha256Hex(await Deno.readFile(path)), sha256Hex(bytes));

    const key = (await admin("POST", "keys", { name: "weights-test" })).body.key as string;
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: "tiny",
        max_tokens: 4,
        messages: [{ role: "user", content: "hello" }],
      }),
    });
    assertEquals(res.status, 200, await res.clone().text());
    await res.body?.cancel();

    const rm = await ctl("model", "remove", "tiny", "--purge");
    assertEquals(rm.code, 0, rm.text);
    await eventually("the node purged the file", async () => {
      try {
        await Deno.stat(path);
        return undefined;
      } catch {
        return true;
      }
    }, 20_000);
  } catch (e) {
    console.error(logs.slice(-40).join("\n"));
    throw e;
  } finally {
    await agent?.kill();
    await cp.close();
    await hub.close();
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
});
