/**
 * Weights end to end: an in-process control plane whose hub is the fake Hugging Face hub, and one
 * agent process joined over the cluster listener (no GPU). A model whose source is
 * `hf:org/repo/file.gguf` is pinned when added (its origin in the catalog), the node fetches it
 * (the replica goes through `fetching`, with bytes and a percent), starts the sim engine on the
 * fetched path and answers through /v1. `ctl model remove` then makes the node delete the file
 * (by default: weights no model uses any more go). Nodes try the control plane's mirror first (over the cluster listener, with their own
 * credential; nothing configured) and the hub after.
 */
import { assert, assertEquals, assertRejects } from "../assert.ts";
import { eventually } from "../helpers/llmgw_process.ts";
import {
  quickClusterFlags,
  type ReplicaJson,
  runCommand,
  startClusterControlPlane,
} from "../helpers/control_plane.ts";
import { type FakeHub, generatedBytes, sha256Hex, startFakeHub } from "../helpers/fake_hf.ts";
import type { ControlPlane } from "../../server/wiring/serve.ts";
import { mirrorCommand } from "../../server/cli/mirror.ts";

interface Cluster {
  root: string;
  hub: FakeHub;
  cp: ControlPlane;
  url: string;
  logs: string[];
  admin(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: Record<string, unknown> }>;
  /** `llmgw ctl …` against this control plane, its printed lines kept. */
  ctl(...args: string[]): Promise<{ code: number; text: string }>;
  /** `llmgw mirror …` the same way. */
  mirror(...args: string[]): Promise<{ code: number; text: string }>;
  /** Joins one agent process; `hubRoute: false` gives it no hub at all (mirrors only). */
  joinNode(opts: { hubRoute: boolean }): Promise<void>;
  /**
   * Declares a one-replica sim model on `source` and waits for its ready replica, adding every
   * state seen on the way to `states`.
   */
  serveModel(name: string, source: string, states?: Set<string>): Promise<ReplicaJson>;
  /** A chat completion through /v1; answers the status. */
  chat(model: string): Promise<number>;
}

async function withCluster(fn: (c: Cluster) => Promise<void>): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "llmgw-weights-e2e-" });
  const hub = startFakeHub();
  const c = await startClusterControlPlane(root, {
    flags: { ...quickClusterFlags, "weights-hf-endpoint": hub.url },
  });
  const { cp, url, token, logs, admin } = c;
  const cluster: Cluster = {
    root,
    hub,
    cp,
    url,
    logs,
    admin,
    ctl: c.ctl,
    mirror: (...args) => runCommand(mirrorCommand, args, url, token),
    async joinNode({ hubRoute }) {
      await c.joinAgent("node", {
        args: [
          "--weights-hf-endpoint",
          hubRoute ? hub.url : "",
          "--channel-idle-ms",
          "1000",
          "--channel-answer-ms",
          "1000",
        ],
      });
      await eventually("the node reporting", async () => {
        const nodes = (await admin("GET", "nodes")).body.data as { state: string; engines?: [] }[];
        return nodes.length === 1 && nodes[0]!.state === "ready" && nodes[0]!.engines
          ? nodes
          : undefined;
      }, 30_000);
    },
    async serveModel(name, source, states = new Set()) {
      await c.addModel(`
name: ${name}
source: ${source}
profiles: [{ engine: sim, gpus: 0, memory_gb: 1, cores: 1 }]
`);
      return await c.readyReplica(name, 30_000, states);
    },
    async chat(model) {
      const key = (await admin("POST", "keys", { name: `weights-${model}` })).body.key as string;
      const res = await c.chat(key, model);
      await res.body?.cancel();
      return res.status;
    },
  };
  try {
    await fn(cluster);
  } catch (e) {
    console.error(logs.slice(-40).join("\n"));
    for (const a of c.agents) console.error(a.output().split("\n").slice(-40).join("\n"));
    throw e;
  } finally {
    await c.close();
    await hub.close();
  }
}

const e2e = { sanitizeOps: false, sanitizeResources: false };

Deno.test({
  name: "weights: an hf: model not mirrored is fetched from the hub with progress, started, purged",
  ...e2e,
}, async () => {
  await withCluster(async (c) => {
    const bytes = generatedBytes(3_000_000, 7);
    const commit = c.hub.putRepo("acme/tiny-gguf", { "tiny.gguf": bytes });
    await c.joinNode({ hubRoute: true });
    const states = new Set<string>();
    const ready = await c.serveModel("tiny", "hf:acme/tiny-gguf/tiny.gguf", states);
    // Pinned at add: the catalog holds the commit and the file's sha256.
    assertEquals(c.cp.deps.catalog.get("tiny")!.origin, {
      kind: "hf",
      repo: "acme/tiny-gguf",
      commit,
      files: [{ path: "tiny.gguf", size: bytes.length, sha256: sha256Hex(bytes) }],
      entry: "tiny.gguf",
    });
    assert(states.has("fetching") || ready.fetched, `states seen: ${[...states]}`);
    assertEquals(ready.fetched, { bytes: bytes.length, total: bytes.length, percent: 100 });
    // The mirror does not hold it (its 404 is not retried): the hub served the node.
    assert(c.hub.fileRequests("tiny.gguf").length > 0, "the node fell back to the hub");
    const path = `${c.root}/node/weights/acme/tiny-gguf/${commit}/tiny.gguf`;
    assertEquals(sha256Hex(await Deno.readFile(path)), sha256Hex(bytes));
    assertEquals(await c.chat("tiny"), 200);

    // No --purge: weights no model uses any more go by default.
    const rm = await c.ctl("model", "remove", "tiny");
    assertEquals(rm.code, 0, rm.text);
    await eventually("the node purged the file", async () => {
      try {
        await Deno.stat(path);
        return undefined;
      } catch {
        return true;
      }
    }, 20_000);
  });
});

Deno.test({
  name: "weights: a node with no route to the hub serves a model from its control plane's mirror",
  ...e2e,
}, async () => {
  await withCluster(async (c) => {
    const bytes = generatedBytes(2_000_000, 11);
    const commit = c.hub.putRepo("acme/offline-gguf", { "offline.gguf": bytes });
    const added = await c.mirror("add", "hf:acme/offline-gguf/offline.gguf", "--wait", "--json");
    assertEquals(added.code, 0, added.text);
    assertEquals(JSON.parse(added.text).status, "complete");
    const hubSaw = c.hub.requests.length;

    // No hub on the node and no mirror configured anywhere: only the default, its control plane.
    await c.joinNode({ hubRoute: false });
    const ready = await c.serveModel("offline", "hf:acme/offline-gguf/offline.gguf");
    assertEquals(ready.fetched, { bytes: bytes.length, total: bytes.length, percent: 100 });
    const path = `${c.root}/node/weights/acme/offline-gguf/${commit}/offline.gguf`;
    assertEquals(sha256Hex(await Deno.readFile(path)), sha256Hex(bytes));
    assertEquals(await c.chat("offline"), 200);
    // Pinning the model at add asks the hub for its tree; no file bytes went from it.
    assertEquals(
      c.hub.requests.slice(hubSaw).filter((r) =>
        r.path.includes("/resolve/") || r.path.startsWith("/cdn/")
      ),
      [],
    );
  });
});

Deno.test({
  name: "weights: a node with hub access takes a mirrored version from the mirror, not the hub",
  ...e2e,
}, async () => {
  await withCluster(async (c) => {
    const bytes = generatedBytes(2_000_000, 13);
    const commit = c.hub.putRepo("acme/kept-gguf", { "kept.gguf": bytes });
    const added = await c.mirror("add", "hf:acme/kept-gguf/kept.gguf", "--wait", "--json");
    assertEquals(added.code, 0, added.text);
    const mirroring = c.hub.fileRequests("kept.gguf").length;
    assert(mirroring > 0, "the mirror itself fetched from the hub");

    await c.joinNode({ hubRoute: true });
    await c.serveModel("kept", "hf:acme/kept-gguf/kept.gguf");
    const path = `${c.root}/node/weights/acme/kept-gguf/${commit}/kept.gguf`;
    assertEquals(sha256Hex(await Deno.readFile(path)), sha256Hex(bytes));
    assertEquals(await c.chat("kept"), 200);
    assertEquals(c.hub.fileRequests("kept.gguf").length, mirroring, "the node asked the hub");
  });
});

Deno.test({
  name: "weights: remove --keep-weights keeps the node's files; ctl weights prune removes them",
  ...e2e,
}, async () => {
  await withCluster(async (c) => {
    const commit = c.hub.putRepo("acme/kept", { "kept.gguf": generatedBytes(200_000, 3) });
    const other = c.hub.putRepo("acme/used", { "used.gguf": generatedBytes(100_000, 4) });
    await c.joinNode({ hubRoute: true });
    await c.serveModel("kept", "hf:acme/kept/kept.gguf");
    await c.serveModel("used", "hf:acme/used/used.gguf");
    const kept = `${c.root}/node/weights/acme/kept/${commit}/kept.gguf`;
    const used = `${c.root}/node/weights/acme/used/${other}/used.gguf`;
    const rm = await c.ctl("model", "remove", "kept", "--keep-weights");
    assertEquals(rm.code, 0, rm.text);
    await eventually("kept's replica gone", async () => {
      const rows = (await c.admin("GET", "replicas?model=kept")).body.data as unknown[];
      return rows.length === 0 ? true : undefined;
    }, 20_000);
    assert((await Deno.stat(kept)).isFile, "--keep-weights kept the file");
    const pruned = await c.ctl("weights", "prune");
    assertEquals(pruned.code, 0, pruned.text);
    assertEquals(pruned.text, "asked 1 node(s) to remove the weights no model uses");
    await assertRejects(() => Deno.stat(`${c.root}/node/weights/acme/kept`), Deno.errors.NotFound);
    assert((await Deno.stat(used)).isFile, "a model's weights stay");
  });
});
