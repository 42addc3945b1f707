/**
 * What the set tunnel (agent/tunnel) costs llama.cpp's RPC split, in decode tokens per second:
 *
 *   LLAMA_SERVER=… LLAMA_RPC_SERVER=… deno run -A bench/rpc_tunnel.ts [GGUF] [rounds]
 *
 * One rpc-server on loopback holds the offloaded layers; llama-server reaches it (a) directly
 * and (b) through the tunnel as two agents run it (a loopback forward, mutual TLS with cluster
 * certificates, the worker's listener, loopback again). Each round asks for 64 tokens and reads
 * llama-server's own `timings.predicted_per_second`; the median of the rounds, in three alternated runs each, is printed. Both
 * ends on one machine: the figure is the tunnel's own cost (TLS, two more hops), not a network's.
 */
import { ensureClusterTls, loadClusterTls } from "../server/tls/cluster_tls.ts";
import { nodeCertificates } from "../server/tls/node_certificate.ts";
import { headForward, workerTunnel } from "../agent/tunnel/tunnel.ts";
import { createLogger } from "../core/log.ts";

const llama = Deno.env.get("LLAMA_SERVER");
const rpc = Deno.env.get("LLAMA_RPC_SERVER");
if (!llama || !rpc) throw new Error("set LLAMA_SERVER and LLAMA_RPC_SERVER");
const gguf = Deno.args[0] ??
  new URL("../../shared/fixtures/tiny-random-llama.gguf", import.meta.url)
    .pathname;
const rounds = Number(Deno.args[1] ?? 20);
const logger = createLogger({ level: "error" });

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = l.addr;
  l.close();
  return port;
}

function spawn(cmd: string, args: string[]): Deno.ChildProcess {
  return new Deno.Command(cmd, { args, stdout: "null", stderr: "null" }).spawn();
}

async function until(url: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const ok = await fetch(url).then((r) => (r.body?.cancel(), r.ok), () => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} never answered`);
}

/** Median decode tokens/s of `rounds` completions of 64 tokens through llama-server at `rpcAt`. */
async function measure(rpcAt: string): Promise<number> {
  const port = freePort();
  const server = spawn(llama!, [
    "-m",
    gguf,
    "--host",
    "127.0.0.1",
    "--port",
    String(port),
    "--rpc",
    rpcAt,
    "-ngl",
    "999",
    "-c",
    "512",
  ]);
  try {
    await until(`http://127.0.0.1:${port}/health`);
    const speeds: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const res = await fetch(`http://127.0.0.1:${port}/completion`, {
        method: "POST",
        body: JSON.stringify({ prompt: `round ${i}: once upon a time`, n_predict: 64 }),
      });
      const body = await res.json();
      speeds.push(body.timings.predicted_per_second);
    }
    speeds.sort((a, b) => a - b);
    return speeds[Math.floor(speeds.length / 2)]!;
  } finally {
    server.kill("SIGTERM");
    await server.status;
  }
}

const dir = await Deno.makeTempDir({ prefix: "llmgw-rpc-bench-" });
await ensureClusterTls(dir, ["localhost"]);
const { caPem } = await loadClusterTls(dir);
const mint = nodeCertificates(dir);
const rpcPort = freePort();
const worker = spawn(rpc, ["-H", "127.0.0.1", "-p", String(rpcPort)]);
await new Promise((r) => setTimeout(r, 500));
const tunnel = await workerTunnel({
  identity: { ...(await mint("worker")), caPem },
  host: "127.0.0.1",
  head: "head",
  target: () => rpcPort,
  logger,
});
const forward = await headForward({
  identity: { ...(await mint("head")), caPem },
  remote: `127.0.0.1:${tunnel.port}`,
  worker: "worker",
  logger,
});
try {
  // Alternated, so a neighbour's load on a shared machine falls on both alike.
  const d: number[] = [];
  const t: number[] = [];
  for (let i = 0; i < 3; i++) {
    d.push(await measure(`127.0.0.1:${rpcPort}`));
    t.push(await measure(`127.0.0.1:${forward.port}`));
  }
  const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[1]!;
  const [direct, tunnelled] = [mid(d), mid(t)];
  console.log(
    `runs, direct: ${d.map((x) => x.toFixed(0)).join(", ")}; tunnel: ${
      t.map((x) => x.toFixed(0)).join(", ")
    }`,
  );
  const cost = (100 * (direct - tunnelled)) / direct;
  console.log(`model: ${gguf}, all layers on the RPC worker, ${rounds} rounds of 64 tokens`);
  console.log(`direct to rpc-server:   ${direct.toFixed(1)} tokens/s (median)`);
  console.log(`through the tunnel:     ${tunnelled.toFixed(1)} tokens/s (median)`);
  console.log(`tunnel cost:            ${cost.toFixed(1)} %`);
} finally {
  await forward.close();
  await tunnel.close();
  worker.kill("SIGTERM");
  await worker.status;
  await Deno.remove(dir, { recursive: true });
}
