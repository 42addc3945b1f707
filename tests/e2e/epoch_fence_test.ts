/**
 * Leader fencing, from the node's side: a real `llmgw agent` process dials two control planes
 * played by the test over the real TLS channel. The first leads at epoch 2; when it goes, the
 * agent reaches the second, a deposed leader still at epoch 1 that has not noticed: its welcome
 * and its start command are refused (nothing started, the command answered as refused) and the
 * agent goes on to the next control plane. A command of an older epoch on a current leader's
 * channel is refused the same way, one of the current epoch is done.
 */
import { assert, assertEquals } from "../assert.ts";
import { ensureClusterTls, loadClusterTls } from "../../server/tls/cluster_tls.ts";
import {
  eventually,
  type LlmgwProcess,
  quickAgentFlags,
  spawnLlmgw,
} from "../helpers/llmgw_process.ts";

type Msg = Record<string, unknown>;

/** One channel as a control plane sees it: what the node sent, and how it ended. */
interface Conn {
  inbox: Msg[];
  send(m: Msg): void;
  close(code: number, reason: string): void;
  closed: Promise<{ code: number; reason: string }>;
}

/** A TLS listener answering the control channel's upgrade; each connection goes to `onConn`. */
function fakeControlPlane(tls: { cert: string; key: string }, onConn: (c: Conn) => void) {
  const listening = Promise.withResolvers<number>();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    ...tls,
    onListen: (a) => listening.resolve(a.port),
  }, (req) => {
    if (!new URL(req.url).pathname.endsWith("/cluster/v1/channel")) {
      return new Response("not found", { status: 404 });
    }
    const { socket, response } = Deno.upgradeWebSocket(req);
    const inbox: Msg[] = [];
    const closed = Promise.withResolvers<{ code: number; reason: string }>();
    socket.onmessage = (e) => {
      const m = JSON.parse(e.data) as Msg;
      if (m.type === "ping") socket.send(JSON.stringify({ type: "pong", id: m.id }));
      else inbox.push(m);
    };
    socket.onclose = (e) => closed.resolve({ code: e.code, reason: e.reason });
    socket.onopen = () =>
      onConn({
        inbox,
        send: (m) => socket.send(JSON.stringify(m)),
        close: (code, reason) => socket.close(code, reason),
        closed: closed.promise,
      });
    return response;
  });
  return { port: listening.promise, close: () => server.shutdown() };
}

function welcome(epoch: number): Msg {
  return {
    type: "welcome",
    nodeId: "n1",
    name: "node",
    version: "test",
    protocol: 2,
    heartbeatMs: 300,
    replicas: [],
    epoch,
  };
}

const simStart = (id: string, epoch: number): Msg => ({
  type: "start_replica",
  id,
  epoch,
  spec: { replicaId: "s1", model: "m", engine: "sim", args: [], apiKey: "k".repeat(20) },
});

function resultOf(c: Conn, id: string): Promise<Msg> {
  return eventually(
    `the result of ${id}`,
    () => Promise.resolve(c.inbox.find((m) => m.type === "command_result" && m.id === id)),
    10_000,
    20,
  );
}

Deno.test({
  name: "an agent refuses a deposed leader's welcome and commands, and goes on to the next",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const root = await Deno.makeTempDir({ prefix: "llmgw-fence-" });
  const conns: { leader: Conn[]; deposed: Conn[] } = { leader: [], deposed: [] };
  let agent: LlmgwProcess | undefined;
  const servers: { close(): Promise<void> }[] = [];
  try {
    await ensureClusterTls(`${root}/cp`, ["127.0.0.1"]);
    const t = await loadClusterTls(`${root}/cp`);
    const tls = { cert: t.certChainPem, key: t.keyPem };
    const leader = fakeControlPlane(tls, (c) => {
      conns.leader.push(c);
      c.send(welcome(2));
    });
    // Deposed at epoch 1 without knowing: it welcomes the node and at once places a replica.
    const deposed = fakeControlPlane(tls, (c) => {
      conns.deposed.push(c);
      c.send(welcome(1));
      c.send(simStart("from-deposed", 1));
    });
    servers.push(leader, deposed);
    const node = `${root}/node`;
    await Deno.mkdir(node, { recursive: true });
    await Deno.writeTextFile(`${node}/node.credential`, "node-credential-for-the-test");
    await Deno.writeTextFile(`${node}/ca.pem`, t.caPem);
    const urls = [
      `https://127.0.0.1:${await leader.port}`,
      `https://127.0.0.1:${await deposed.port}`,
    ];
    agent = spawnLlmgw(
      [
        "agent",
        "--data",
        node,
        "--control-urls",
        urls.join(","),
        "--name",
        "node",
        "--gpu-nvml-library",
        `${root}/absent-libnvidia-ml.so.1`,
        "--gpu-nvidia-smi",
        `${root}/absent-nvidia-smi`,
        ...quickAgentFlags,
      ],
      {},
      "agent",
    );

    // On the leader's channel: a command of an older epoch is refused, and sends the node on.
    await eventually(
      "the agent on the leader",
      () =>
        Promise.resolve(conns.leader[0]?.inbox.some((m) => m.type === "heartbeat") || undefined),
    );
    const a = conns.leader[0]!;
    a.send({ type: "stop_replica", id: "stale-stop", replicaId: "s9", epoch: 1 });
    const stale = await resultOf(a, "stale-stop");
    assertEquals(stale.ok, false);
    assert(String(stale.error).includes("epoch 1 is older than epoch 2"), String(stale.error));
    await a.closed;

    // Next in its list is the deposed one: its welcome and start are refused, nothing started.
    const d = await eventually(
      "the deposed control plane dialled",
      () => Promise.resolve(conns.deposed[0]),
    );
    const ended = await d.closed;
    assert(/epoch 1 is older than epoch 2/.test(ended.reason), JSON.stringify(ended));
    const done = d.inbox.filter((m) => m.type === "command_result" && m.ok !== false);
    assertEquals(done, [], "nothing the deposed leader asked was done");

    // Then the leader again: it is welcomed, and a command of the current epoch is done.
    await eventually(
      "the agent back on the leader",
      () =>
        Promise.resolve(conns.leader[1]?.inbox.some((m) => m.type === "heartbeat") || undefined),
    );
    const b = conns.leader[1]!;
    b.send({ type: "stop_replica", id: "current-stop", replicaId: "s9", epoch: 2 });
    assertEquals((await resultOf(b, "current-stop")).ok, true);
    const beat = b.inbox.findLast((m) => m.type === "heartbeat")!;
    assertEquals(beat.replicas, [], "the deposed leader's replica was never started");
  } finally {
    await agent?.kill("SIGTERM");
    for (const s of servers) await s.close();
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
});
