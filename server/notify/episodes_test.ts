/**
 * Once per episode, through a real control plane, the real node channel and a real webhook
 * receiver: a crash-looping model (every retry a new replica) is one `replica_failed`, with the
 * engine's last output lines, and one `replica_recovered` when a replica is ready again; a
 * replica stopped (an eviction, a drain) says nothing; an on-demand model evicted while idle is
 * not `model_unservable`; an agent back within 2 s sends nothing at all.
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { startTestControlPlane } from "../../tests/helpers/control_plane.ts";
import { joinChannelNode, until } from "../../tests/helpers/channel_node.ts";

interface Got {
  event: string;
  state: string;
  subject: string;
  details: Record<string, unknown>;
}

async function withReceiver(
  fn: (
    t: Awaited<ReturnType<typeof startTestControlPlane>>,
    got: Got[],
  ) => Promise<void>,
): Promise<void> {
  const got: Got[] = [];
  const receiver = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (r) => {
    const e = JSON.parse(await r.text());
    got.push({ event: e.event, state: e.state, subject: e.subject, details: e.details });
    return new Response("ok");
  });
  const t = await startTestControlPlane({
    flags: {
      "notify-webhooks": `http://127.0.0.1:${receiver.addr.port}/hook`,
      "notify-backoff-ms": "50",
      // These fake nodes send no heartbeats; only a closed channel loses one.
      "nodes-lost-after-ms": "60000",
    },
  });
  try {
    await fn(t, got);
  } finally {
    await t.close();
    await receiver.shutdown();
  }
}

type Replica = { replicaId: string; model: string; state: string; error?: string };
const report = (s: Replica) => ({
  type: "replica_state",
  replica: { engine: "sim", baseUrl: "http://127.0.0.1:9", pid: 0, ...s },
});

Deno.test("episodes: a crash loop is one replica_failed with the engine's last lines, and one recovery", async () => {
  await withReceiver(async (t, got) => {
    await t.cp.deps.catalog.upsert({ name: "loopy", engine: "sim", source: "" });
    const node = await joinChannelNode(t.cp, t.caPem, "box");
    const output = Array.from({ length: 30 }, (_, i) => `engine line ${i + 1}`).join("\n");
    // Every retry of a crash loop is a new replica (the reconciler places a fresh one).
    for (let i = 0; i < 5; i++) {
      node.send(report({ replicaId: `s${i}`, model: "loopy", state: "starting" }));
      node.send(report({
        replicaId: `s${i}`,
        model: "loopy",
        state: "failed",
        error: `exited with code 1 while starting\n--- engine output ---\n${output}`,
      }));
      // Then stopped and forgotten, as the reconciler does with a failed replica.
      node.send(report({ replicaId: `s${i}`, model: "loopy", state: "stopped" }));
      await new Promise((r) => setTimeout(r, 40));
    }
    await until(() => got.some((g) => g.event === "replica_failed"));
    await new Promise((r) => setTimeout(r, 300));
    assertEquals(got.map((g) => g.event), ["replica_failed"], "one message for the whole loop");
    const error = String(got[0]!.details.error);
    assert(error.startsWith("exited with code 1 while starting"), error);
    assert(error.includes("engine line 30"), `the engine's last lines: ${error}`);
    assertEquals(got[0]!.subject, "loopy");

    node.send(report({ replicaId: "s9", model: "loopy", state: "starting" }));
    node.send(report({ replicaId: "s9", model: "loopy", state: "ready" }));
    await until(() => got.some((g) => g.event === "replica_recovered"));
    // A surplus replica drained and stopped later: planned, so nothing.
    node.send(report({ replicaId: "s10", model: "loopy", state: "ready" }));
    node.send(report({ replicaId: "s10", model: "loopy", state: "stopped" }));
    await new Promise((r) => setTimeout(r, 1_500));
    assertEquals(got.map((g) => g.event), ["replica_failed", "replica_recovered"]);
    await node.close();
  });
});

Deno.test("episodes: an on-demand model evicted while idle is not model_unservable", async () => {
  await withReceiver(async (t, got) => {
    await t.cp.deps.modelServices!.add([
      (await import("../models/model_yaml.ts")).parseModel({
        name: "lazy",
        source: "/models/lazy.gguf",
        on_demand: true,
        profiles: [{ engine: "sim" }],
      }),
    ]);
    const node = await joinChannelNode(t.cp, t.caPem, "box");
    node.send(report({ replicaId: "od1", model: "lazy", state: "ready" }));
    await until(() => t.cp.deps.replicas.forModel("lazy").some((r) => r.state === "ready"));
    // Evicted: the replica is stopped on purpose.
    node.send(report({ replicaId: "od1", model: "lazy", state: "stopped" }));
    await until(() => t.cp.deps.replicas.forModel("lazy").length === 0);
    await new Promise((r) => setTimeout(r, 2_500));
    assertEquals(got.map((g) => g.event), [], JSON.stringify(got));
    await node.close();
  });
});

Deno.test("episodes: an agent back within 2 s sends nothing", async () => {
  await withReceiver(async (t, got) => {
    await t.cp.deps.catalog.upsert({ name: "m1", engine: "sim", source: "" });
    const node = await joinChannelNode(t.cp, t.caPem, "box");
    // The in-process sim engine of the test control plane stands in for the node's engine.
    const replica = {
      replicaId: "s1",
      model: "m1",
      engine: "sim",
      state: "ready",
      baseUrl: t.engine.url,
      pid: 1,
    };
    node.send({ type: "heartbeat", replicas: [replica] });
    await until(() => t.cp.deps.replicas.forModel("m1").some((r) => r.state === "ready"));
    await node.close();
    await new Promise((r) => setTimeout(r, 2_000));
    const again = await joinChannelNode(t.cp, t.caPem, "box", { credential: node.credential });
    again.send({ type: "heartbeat", replicas: [replica] });
    await new Promise((r) => setTimeout(r, 2_500));
    assertEquals(got.map((g) => `${g.event} ${g.subject}`), [], "not one message");
    assert(t.cp.deps.replicas.forModel("m1").some((r) => r.state === "ready"));
    await again.close();
  });
});
