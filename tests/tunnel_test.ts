/**
 * The set tunnel over the cluster's mutual TLS (agent/tunnel): certificates minted by the
 * control plane's CA (server/tls/node_certificate.ts), real sockets on loopback. Only the head's
 * agent gets through a worker's tunnel; the head checks it reached the worker it meant.
 */
import { assertEquals } from "./assert.ts";
import { ensureClusterTls, loadClusterTls } from "../server/tls/cluster_tls.ts";
import { nodeCertificates } from "../server/tls/node_certificate.ts";
import { headForward, type TunnelIdentity, workerTunnel } from "../agent/tunnel/tunnel.ts";
import { createLogger } from "../core/log.ts";

const logger = createLogger({ level: "error" });

/** Sends `text` through the loopback port and returns what came back before the peer closed. */
async function roundTrip(port: number, text: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(new TextEncoder().encode(text));
  const buf = new Uint8Array(64);
  const n = await Promise.race([
    conn.read(buf).catch(() => null),
    new Promise<null>((r) => setTimeout(() => r(null), 3000)),
  ]);
  conn.close();
  return n ? new TextDecoder().decode(buf.subarray(0, n)) : "";
}

Deno.test({
  name: "tunnel: the head reaches its worker's engine; any other node is turned away",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-tunnel-" });
  await ensureClusterTls(dir, ["localhost"]);
  const { caPem } = await loadClusterTls(dir);
  const mint = nodeCertificates(dir);
  const id = async (node: string): Promise<TunnelIdentity> => ({ ...(await mint(node)), caPem });
  // The "engine": echoes what it gets, on loopback, like rpc-server answering its head.
  const engine = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  (async () => {
    for await (const c of engine) {
      (async () => {
        const buf = new Uint8Array(64);
        const n = await c.read(buf).catch(() => null);
        if (n) await c.write(buf.subarray(0, n)).catch(() => {});
        c.close();
      })();
    }
  })();
  const worker = await workerTunnel({
    identity: await id("w1"),
    host: "127.0.0.1",
    head: "h1",
    target: () => engine.addr.port,
    logger,
  });
  const remote = `127.0.0.1:${worker.port}`;
  const head = await headForward({ identity: await id("h1"), remote, worker: "w1", logger });
  const stranger = await headForward({ identity: await id("x9"), remote, worker: "w1", logger });
  const misled = await headForward({ identity: await id("h1"), remote, worker: "w2", logger });
  try {
    assertEquals(await roundTrip(head.port, "layers"), "layers");
    assertEquals(worker.bytes.in >= 6, true, "the worker's agent counted what the head sent");
    assertEquals(await roundTrip(stranger.port, "steal"), "", "another node's agent is refused");
    assertEquals(await roundTrip(misled.port, "hello"), "", "the head checks the worker's name");
  } finally {
    await Promise.all([head.close(), stranger.close(), misled.close(), worker.close()]);
    engine.close();
    await Deno.remove(dir, { recursive: true });
  }
});
