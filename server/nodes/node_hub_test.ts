/**
 * The control plane's end of the channel, in-process with a real store and TLS listener: a bad
 * credential is refused before the upgrade; invalid frames are dropped (the channel stays up);
 * hello gets a welcome; a ready shard becomes a replica and leaves when the channel closes.
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { createLogger } from "../../core/log.ts";
import { loadServerConfig } from "../config.ts";
import { startControlPlane } from "../serve.ts";
import { initDataDir } from "../setup/init.ts";
import { systemClock } from "../../core/clock.ts";

Deno.test("node hub: refuses bad credentials, drops invalid frames, maps shards to replicas", async () => {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-hub-" });
  const lines: string[] = [];
  const logger = createLogger({ sink: (l) => lines.push(l), level: "debug" });
  await initDataDir(dir, { clock: systemClock });
  const config = await loadServerConfig({
    flags: {
      data: dir,
      listen: "127.0.0.1:0",
      "cluster-listen": "127.0.0.1:0",
      "metrics-listen": "127.0.0.1:0",
      portal: "false",
    },
    env: {},
  });
  const cp = await startControlPlane(config, { logger });
  const caPem = await Deno.readTextFile(`${dir}/tls/ca.pem`);
  const client = Deno.createHttpClient({ caCerts: [caPem] });
  try {
    const base = cp.clusterUrls![0]!;
    const bad = await fetch(`${base}/cluster/v1/channel`, {
      client,
      headers: { authorization: "Bearer llmgw_node_nope" },
    });
    assertEquals(bad.status, 401);
    await bad.body?.cancel();

    const { code } = await cp.deps.nodes!.joinCodes.create({ labels: {}, ttlMs: 60_000 });
    const secret = JSON.parse(atob(code.slice(8).replaceAll("-", "+").replaceAll("_", "/")))
      .secret;
    const joined = await cp.deps.nodes!.joinCodes.redeem(secret, "n1");
    const ws = new WebSocket(`${base.replace("https", "wss")}/cluster/v1/channel`, {
      client,
      headers: { authorization: `Bearer ${joined.credential}` },
    });
    const inbox: Record<string, unknown>[] = [];
    ws.onmessage = (e) => inbox.push(JSON.parse(e.data));
    await new Promise((r, j) => {
      ws.onopen = r;
      ws.onerror = j;
    });
    ws.send("not json");
    ws.send(JSON.stringify({ type: "heartbeat", shards: "lots" }));
    ws.send(JSON.stringify({ type: "hello", protocol: 1, version: "test" }));
    const until = async (f: () => boolean) => {
      for (let i = 0; i < 100 && !f(); i++) await new Promise((r) => setTimeout(r, 20));
      assert(f());
    };
    await until(() => inbox.some((m) => m.type === "welcome"));
    assertEquals(lines.filter((l) => l.includes("dropped an invalid message")).length, 2);
    assert(!lines.some((l) => l.includes(joined.credential)), "the credential is never logged");

    ws.send(JSON.stringify({
      type: "heartbeat",
      shards: [{
        shardId: "s1",
        model: "m1",
        engine: "sim",
        state: "ready",
        baseUrl: "http://127.0.0.1:9",
        pid: 1234,
        slots: 12,
        load: { known: true, running: 3, waiting: 1, kvCacheUsage: 0.25, readAt: 2_000 },
      }],
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
      type: "shard_state",
      shard: {
        shardId: "s1",
        model: "m1",
        engine: "sim",
        state: "ready",
        baseUrl: "http://127.0.0.1:9",
        pid: 1234,
        load: { known: true, running: 0, readAt: 1_000 },
      },
    }));
    ws.send(JSON.stringify({ type: "ping", id: "after-stale" }));
    await until(() => inbox.some((m) => m.type === "pong" && m.id === "after-stale"));
    assertEquals(replica.load.running, 3);
    // An undesired shard is told to stop.
    await until(() => inbox.some((m) => m.type === "stop_shard" && m.shardId === "s1"));

    ws.close();
    await until(() => cp.deps.replicas.forModel("m1").length === 0);
    const [view] = await cp.deps.nodes!.hub.list();
    assertEquals(view?.state, "lost");
  } finally {
    client.close();
    await cp.close();
    await Deno.remove(dir, { recursive: true });
  }
});
