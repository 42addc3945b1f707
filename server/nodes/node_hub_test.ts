/**
 * The control plane's end of the channel, in-process with a real store and TLS listener: a bad
 * credential is refused before the upgrade; invalid frames are dropped (the channel stays up);
 * hello gets a welcome; a replica reported ready becomes routable and leaves when the channel closes.
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { nodeCredential, openChannel } from "../../tests/helpers/channel_node.ts";
import { startTestControlPlane } from "../../tests/helpers/control_plane.ts";
import { hasUsable } from "../router/choose.ts";

Deno.test("node hub: refuses bad credentials, drops invalid frames, routes the replicas nodes report", async () => {
  const t = await startTestControlPlane();
  const { cp, caPem, lines } = t;
  const client = Deno.createHttpClient({ caCerts: [caPem] });
  try {
    const base = cp.clusterUrls![0]!;
    const bad = await fetch(`${base}/cluster/v1/channel`, {
      client,
      headers: { authorization: "Bearer llmgw_node_nope" },
    });
    assertEquals(bad.status, 401);
    await bad.body?.cancel();

    const credential = await nodeCredential(cp, "n1");
    const { ws, inbox } = await openChannel(cp, client, credential);
    ws.send("not json");
    ws.send(JSON.stringify({ type: "heartbeat", replicas: "lots" }));
    ws.send(JSON.stringify({ type: "hello", protocol: 2, version: "test" }));
    const until = async (f: () => boolean) => {
      for (let i = 0; i < 100 && !f(); i++) await new Promise((r) => setTimeout(r, 20));
      assert(f());
    };
    await until(() => inbox.some((m) => m.type === "welcome"));
    // The welcome carries the leader lease's epoch (the first lease of a new store), for fencing.
    assertEquals(inbox.find((m) => m.type === "welcome")!.epoch, 1);
    assertEquals(lines.filter((l) => l.includes("dropped an invalid message")).length, 2);
    assert(!lines.some((l) => l.includes(credential)), "the credential is never logged");

    const report = (extra: Record<string, unknown>) => ({
      replicaId: "s1",
      model: "m1",
      engine: "sim",
      state: "ready",
      baseUrl: "http://127.0.0.1:9",
      pid: 1234,
      ...extra,
    });
    ws.send(JSON.stringify({
      type: "heartbeat",
      replicas: [report({
        slots: 12,
        load: { known: true, running: 3, waiting: 1, kvCacheUsage: 0.25, readAt: 2_000 },
      })],
    }));
    await until(() => cp.deps.replicas.forModel("m1").length === 1);
    const replica = cp.deps.replicas.forModel("m1")[0]!;
    assertEquals(replica.state, "ready");
    assert(replica.apiKey.startsWith("llmgw_rep_"));
    // The router admits as many as the engine was launched to run, and scores by its report.
    assertEquals(replica.slots, 12);
    assertEquals(replica.load, {
      known: true,
      running: 3,
      waiting: 1,
      kvCacheUsage: 0.25,
      readAt: 2_000,
    });
    // A report older than the one held (a late heartbeat) does not undo a fresher read.
    ws.send(JSON.stringify({
      type: "replica_state",
      replica: report({ load: { known: true, running: 0, readAt: 1_000 } }),
    }));
    ws.send(JSON.stringify({ type: "ping", id: "after-stale" }));
    await until(() => inbox.some((m) => m.type === "pong" && m.id === "after-stale"));
    assertEquals(replica.load.running, 3);
    // A hung engine (failing its health checks) leaves routing at once, and is back when it answers.
    assert(hasUsable(cp.deps.replicas, "m1", new Set()));
    ws.send(JSON.stringify({ type: "replica_state", replica: report({ state: "unhealthy" }) }));
    await until(() => replica.state === "unhealthy");
    assert(!hasUsable(cp.deps.replicas, "m1", new Set()), "no request goes to a hung engine");
    ws.send(JSON.stringify({ type: "replica_state", replica: report({}) }));
    await until(() => replica.state === "ready");
    // An undesired replica is told to stop.
    await until(() => inbox.some((m) => m.type === "stop_replica" && m.replicaId === "s1"));

    ws.close();
    await until(() => cp.deps.replicas.forModel("m1").length === 0);
    const [view] = await cp.deps.nodes!.hub.list();
    assertEquals(view?.state, "lost");
    await until(() => cp.notifications.notifier.isOpen("node_lost", "n1"));

    // A node whose agent stops on purpose (its close frame says so) left: nobody is paged.
    const second = await openChannel(cp, client, await nodeCredential(cp, "n2"));
    second.ws.send(JSON.stringify({ type: "hello", protocol: 2, version: "test" }));
    await until(() => second.inbox.some((m) => m.type === "welcome"));
    second.ws.close(1000, "agent stopping");
    await until(() => lines.some((l) => l.includes('"node left"')));
    assertEquals(cp.notifications.notifier.isOpen("node_lost", "n2"), false);
  } finally {
    client.close();
    await t.close();
  }
});
