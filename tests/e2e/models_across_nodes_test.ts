/**
 * A model larger than any node, served by two agents on this machine (separate data directories
 * and ports, each offering less memory than the model needs through `resources.memory_mb`): the
 * reconciler places a head and a worker, starts the worker first, and the head reaches it only
 * through the agents' mutual-TLS tunnel. With the sim engine standing in (always): the set
 * answers, explain names each part, and a lost worker takes the replica out of routing. With
 * LLAMA_SERVER and LLAMA_RPC_SERVER set: the tiny GGUF on a real `rpc-server` + `llama-server`,
 * and the head's engine log shows the worker holding layers.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { eventually, quickAgentFlags } from "../helpers/llmgw_process.ts";
import {
  type ClusterControlPlane,
  quickClusterFlags,
  type ReplicaJson,
  startClusterControlPlane,
} from "../helpers/control_plane.ts";
import { fixture, fixtureAbsent } from "../helpers/fixtures.ts";
import { skipNote } from "../helpers/skip.ts";

const isWorker = (r: ReplicaJson) => /\.w\d+$/.test(r.id);

/** Two agents, `a` (12 MiB more than `b`, so it is the head) and `b`, each offering `mb` MiB. */
async function twoAgents(c: ClusterControlPlane, mb: number, extra: string[] = []) {
  const port = 42000 + Math.floor(Math.random() * 5000);
  for (const [name, offer, ports] of [["a", mb + 12, port], ["b", mb, port + 30]] as const) {
    await c.joinAgent(name, {
      args: [
        ...quickAgentFlags,
        "--resources-memory-mb",
        String(offer),
        "--engines-ports",
        `${ports}-${ports + 20}`,
        ...extra,
      ],
    });
  }
  await eventually("both nodes reporting memory", async () => {
    const nodes = (await c.admin("GET", "nodes")).body.data as {
      host?: { ramTotalBytes?: number };
    }[];
    return nodes.length === 2 && nodes.every((n) => n.host?.ramTotalBytes) ? true : undefined;
  }, 30_000);
}

/** The set's head once it and its worker are ready. */
async function readySet(c: ClusterControlPlane, model: string, timeoutMs: number) {
  return await eventually(`a ready set of ${model}`, async () => {
    const rows = await c.replicas(model);
    const head = rows.find((r) => !isWorker(r) && r.state === "ready");
    const worker = rows.find((r) => isWorker(r) && r.state === "ready");
    return head && worker ? { head, worker } : undefined;
  }, timeoutMs);
}

Deno.test({
  name: "across nodes (sim): head and worker on two agents, explain, and a lost worker",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const root = await Deno.makeTempDir({ prefix: "llmgw-across-" });
  const c = await startClusterControlPlane(root, {
    flags: {
      ...quickClusterFlags,
      "nodes-lost-after-ms": "1000",
      "nodes-replace-after-ms": "1500",
    },
  });
  try {
    await twoAgents(c, 3 * 1024);
    await c.addModel(`
name: split
source: /models/split.gguf
context_length: 2048
profiles: [{ engine: sim, gpus: 0, memory_gb: 5, cores: 1 }]
`);
    const { head, worker } = await readySet(c, "split", 60_000);
    assertEquals([head.node, worker.node], ["a", "b"]);
    assertEquals(worker.id, `${head.id}.w1`);
    const { key } = (await c.admin("POST", "keys", { name: "across" })).body;
    const res = await c.chat(key, "split");
    assertEquals(res.status, 200, await res.clone().text());
    assertEquals((await res.json()).object, "chat.completion");

    const explain = await c.ctl("model", "explain", "split");
    assertEquals(explain.code, 0, explain.text);
    assertMatch(explain.text, /head of a set with b/);
    assertMatch(explain.text, /worker of the set headed by/);

    // The worker's node goes (its agent stops, engines and all): the head leaves routing and is
    // stopped with its set.
    await c.agents[1]!.kill("SIGINT");
    await eventually("the head out of routing", async () => {
      const rows = await c.replicas("split");
      return rows.some((r) => r.id === head.id && r.state === "ready") ? undefined : true;
    }, 30_000);
    const after = await c.chat(key, "split", { max_tokens: 4 });
    assert(after.status !== 200, `no set answers now: ${after.status}`);
    await after.body?.cancel();
  } finally {
    await c.close();
  }
});

const llama = Deno.env.get("LLAMA_SERVER");
const rpc = Deno.env.get("LLAMA_RPC_SERVER");
const gguf = fixture("tiny-random-llama.gguf");
const why = !llama || !rpc
  ? "set LLAMA_SERVER and LLAMA_RPC_SERVER to llama.cpp binaries built with GGML_RPC"
  : fixtureAbsent("tiny-random-llama.gguf");

Deno.test({
  name: "across nodes (llama.cpp RPC): one GGUF over two agents, the worker holds layers" +
    skipNote(why),
  ignore: !!why,
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const root = await Deno.makeTempDir({ prefix: "llmgw-rpc-" });
  const c = await startClusterControlPlane(root, { flags: { ...quickClusterFlags } });
  try {
    // The tiny model's CPU estimate (4 slots of 2,048 and llama.cpp's buffers) is 2.0 GB: each
    // agent offers less, both together more.
    await twoAgents(c, 1200, ["--engines-llama-server", llama!, "--engines-rpc-server", rpc!]);
    const plan = await c.ctl("model", "plan", gguf!, "--name", "tiny");
    assertEquals(plan.code, 0, plan.text);
    assertMatch(plan.text, /split across 2 nodes/);
    assertMatch(plan.text, /a {2}head {2}1 layer\(s\)/);
    assertMatch(plan.text, /b {2}worker {2}1 layer\(s\)/);

    const served = await c.ctl("model", "serve", gguf!, "--name", "tiny", "--wait-ms", "90000");
    assertEquals(served.code, 0, served.text + "\n" + c.agents.map((a) => a.output()).join("\n"));
    const { head, worker } = await readySet(c, "tiny", 30_000);
    assertEquals([head.node, worker.node], ["a", "b"]);
    const { key } = (await c.admin("POST", "keys", { name: "rpc" })).body;
    const res = await c.chat(key, "tiny", { max_tokens: 8 });
    assertEquals(res.status, 200, await res.clone().text());
    assertEquals((await res.json()).object, "chat.completion");

    // The head's llama-server put the worker's layers in an RPC buffer (reached through the
    // tunnel's loopback port), and the worker's rpc-server was reached only through its tunnel.
    const headLog = c.agents[0]!.output();
    const line = /RPC\[127\.0\.0\.1:\d+\] model buffer size = +([\d.]+) MiB/.exec(headLog);
    assert(line, `the head's engine names an RPC model buffer:\n${headLog.slice(-3000)}`);
    assert(Number(line[1]) > 0, line[0]);
  } finally {
    await c.close();
  }
});
