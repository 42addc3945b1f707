/**
 * The tunnel between a set's head and its workers (seed: llama.cpp's `rpc-server` has no
 * authentication; anyone who reaches its port can use it). A worker's engine listens on loopback
 * only; its agent listens for TLS that requires a client certificate from the cluster CA naming
 * the set's head node, and forwards each accepted connection to the engine. The head's agent
 * offers its engine a loopback port per worker and carries each connection there over TLS,
 * checking the worker's certificate names the worker node. So only the head reaches a worker.
 *
 * node:tls, since Deno.listenTls cannot ask for or check a client certificate.
 */
import net from "node:net";
import tls from "node:tls";
import type { Logger } from "../../core/log.ts";
import { nodeCommonName } from "../../core/protocol/node_common_name.ts";

/** This node's certificate in the cluster (from the welcome) and the CA that signed it. */
export interface TunnelIdentity {
  readonly certPem: string;
  readonly keyPem: string;
  readonly caPem: string;
}

export interface Tunnel {
  /** Where it listens. */
  readonly host: string;
  readonly port: number;
  /** Bytes carried so far: from the peer that connected, and back to it. */
  readonly bytes: { in: number; out: number };
  close(): Promise<void>;
}

function pipeCounted(a: net.Socket, b: net.Socket, bytes: { in: number; out: number }) {
  a.on("data", (d: Uint8Array) => (bytes.in += d.length));
  b.on("data", (d: Uint8Array) => (bytes.out += d.length));
  a.pipe(b);
  b.pipe(a);
  const end = () => {
    a.destroy();
    b.destroy();
  };
  a.on("close", end);
  b.on("close", end);
  a.on("error", end);
  b.on("error", end);
}

function listening(server: net.Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}

function closing(server: net.Server, sockets: Set<net.Socket>): Promise<void> {
  for (const s of sockets) s.destroy();
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * A worker's side: TLS on `host:port` (0: any free port) that accepts only `head`'s agent and
 * forwards to the engine on loopback at `target()` (read per connection: the engine's port is
 * picked when it starts).
 */
export async function workerTunnel(opts: {
  identity: TunnelIdentity;
  host: string;
  port?: number;
  head: string;
  target: () => number | undefined;
  logger: Logger;
}): Promise<Tunnel> {
  const want = nodeCommonName(opts.head);
  const sockets = new Set<net.Socket>();
  const bytes = { in: 0, out: 0 };
  const server = tls.createServer({
    cert: opts.identity.certPem,
    key: opts.identity.keyPem,
    ca: opts.identity.caPem,
    requestCert: true,
    rejectUnauthorized: true,
  }, (peer) => {
    const cn = peer.getPeerCertificate()?.subject?.CN;
    if (!peer.authorized || cn !== want) {
      opts.logger.warn("tunnel refused a peer that is not the set's head", {
        peer: String(cn ?? "none"),
        head: opts.head,
      });
      peer.destroy();
      return;
    }
    const port = opts.target();
    if (!port) return peer.destroy();
    const engine = net.connect(port, "127.0.0.1");
    // The RPC protocol is many small request/answer round trips: no Nagle delay on either hop.
    engine.setNoDelay(true);
    peer.setNoDelay(true);
    sockets.add(peer);
    sockets.add(engine);
    const before = { ...bytes };
    pipeCounted(peer, engine, bytes);
    peer.on("close", () => {
      sockets.delete(peer);
      sockets.delete(engine);
      opts.logger.info("tunnel connection from the head closed", {
        head: opts.head,
        bytesFromHead: bytes.in - before.in,
        bytesToHead: bytes.out - before.out,
      });
    });
  });
  server.on("tlsClientError", () => {}); // a refused handshake is the peer's problem
  const port = await listening(server, opts.host, opts.port ?? 0);
  return { host: opts.host, port, bytes, close: () => closing(server, sockets) };
}

/**
 * A head's side: a loopback port for its engine; each connection is carried over TLS to
 * `remote` (host:port of the worker's tunnel), whose certificate must name `worker`.
 */
export async function headForward(opts: {
  identity: TunnelIdentity;
  remote: string;
  worker: string;
  logger: Logger;
}): Promise<Tunnel> {
  const want = nodeCommonName(opts.worker);
  const at = opts.remote.lastIndexOf(":");
  const host = opts.remote.slice(0, at).replace(/^\[|\]$/g, "");
  const port = Number(opts.remote.slice(at + 1));
  const sockets = new Set<net.Socket>();
  const bytes = { in: 0, out: 0 };
  const server = net.createServer((local) => {
    const remote = tls.connect({
      host,
      port,
      ca: opts.identity.caPem,
      cert: opts.identity.certPem,
      key: opts.identity.keyPem,
      // The worker is known by its node's name in the cluster, not by an address.
      checkServerIdentity: (_host, cert) =>
        cert.subject?.CN === want ? undefined : new Error(`the tunnel's peer is not ${want}`),
    });
    remote.setNoDelay(true);
    local.setNoDelay(true);
    sockets.add(local);
    sockets.add(remote);
    remote.on(
      "error",
      (e) => opts.logger.warn("tunnel to a worker failed", { worker: opts.worker, error: e }),
    );
    pipeCounted(local, remote, bytes);
    local.on("close", () => {
      sockets.delete(local);
      sockets.delete(remote);
    });
  });
  const local = await listening(server, "127.0.0.1", 0);
  return { host: "127.0.0.1", port: local, bytes, close: () => closing(server, sockets) };
}
