/**
 * Notifications end to end: a real control plane, a node on the real channel, a real webhook
 * receiver. A node killed and brought back gives exactly one `node_lost` and one `node_back`
 * however many sweeps and heartbeats pass; a low disk reported on every heartbeat is one message;
 * bodies are signed; a delivery the receiver refuses is retried, and arrives once.
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { startTestControlPlane } from "../../tests/helpers/control_plane.ts";
import { joinChannelNode, until } from "../../tests/helpers/channel_node.ts";
import { hmac } from "./webhook_sender.ts";

interface Received {
  event: string;
  state: string;
  subject: string;
  episode: string;
  delivery: string;
}

Deno.test("notifications: one per episode for a node killed and brought back, signed, retried", async () => {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-notify-" });
  const secret = "shared-webhook-secret";
  await Deno.writeTextFile(`${dir}/secret`, secret + "\n");
  const got: Received[] = [];
  let refusals = 0;
  let badSignatures = 0;
  const receiver = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (req) => {
      const body = await req.text();
      const sig = req.headers.get("x-llmgw-signature");
      if (sig !== `sha256=${await hmac(secret, body)}`) badSignatures++;
      // The first delivery is refused once: it must come again, and count once.
      if (refusals === 0) {
        refusals++;
        return new Response("try later", { status: 503 });
      }
      const e = JSON.parse(body);
      got.push({
        event: e.event,
        state: e.state,
        subject: e.subject,
        episode: e.episode,
        delivery: req.headers.get("x-llmgw-delivery")!,
      });
      return new Response("ok");
    },
  );
  const t = await startTestControlPlane({
    flags: {
      "notify-webhooks": `http://127.0.0.1:${receiver.addr.port}/hook`,
      "notify-secret-file": `${dir}/secret`,
      "notify-backoff-ms": "50",
      "notify-disk-low-bytes": "1000000",
      "nodes-lost-after-ms": "1000",
      "nodes-replace-after-ms": "1000",
    },
  });
  // m1 is a catalog model served at all times, so its having no replica is news.
  await t.cp.deps.catalog.upsert({ name: "m1", engine: "sim", source: "" });
  const count = (event: string) => got.filter((g) => g.event === event).length;
  const beat = (node: { send: (m: Record<string, unknown>) => void }, free: number) =>
    node.send({
      type: "heartbeat",
      host: { os: "linux", disks: [{ purpose: "weights", path: "/w", freeBytes: free }] },
      replicas: [{
        replicaId: "s1",
        model: "m1",
        engine: "sim",
        state: "ready",
        baseUrl: "http://127.0.0.1:9",
        pid: 1,
      }],
    });
  try {
    const node = await joinChannelNode(t.cp, t.caPem, "box1");
    for (let i = 0; i < 4; i++) {
      beat(node, 10);
      await new Promise((r) => setTimeout(r, 30));
    }
    node.send({
      type: "replica_state",
      replica: {
        replicaId: "s2",
        model: "m1",
        engine: "sim",
        state: "failed",
        baseUrl: "",
        pid: 0,
      },
    });
    node.send({
      type: "replica_state",
      replica: {
        replicaId: "s2",
        model: "m1",
        engine: "sim",
        state: "failed",
        baseUrl: "",
        pid: 0,
      },
    });
    await until(() => count("disk_low") === 1 && count("replica_failed") === 1);
    assertEquals(refusals, 1, "the first delivery was refused once");

    // Killed: the channel drops. One node_lost (and m1 loses its only replica).
    await node.close();
    await until(() => count("node_lost") === 1 && count("model_unservable") === 1).catch((e) => {
      console.log(
        JSON.stringify(got),
        t.lines.filter((l) => /notif|lost|webhook/.test(l)).join("\n"),
      );
      throw e;
    });
    // Several sweeps and notifier ticks later, still one of each.
    await new Promise((r) => setTimeout(r, 1_500));
    assertEquals(count("node_lost"), 1);
    assertEquals(count("model_unservable"), 1);

    // Brought back with its credential: one node_back; its heartbeats clear the rest.
    const again = await joinChannelNode(t.cp, t.caPem, "box1", { credential: node.credential });
    for (let i = 0; i < 3; i++) {
      beat(again, 10_000_000_000);
      await new Promise((r) => setTimeout(r, 30));
    }
    await until(() =>
      count("node_back") === 1 && count("model_servable") === 1 && count("disk_ok") === 1
    );
    await new Promise((r) => setTimeout(r, 300));
    assertEquals(count("node_back"), 1);
    assertEquals(count("disk_low"), 1);
    const lost = got.find((g) => g.event === "node_lost")!;
    const back = got.find((g) => g.event === "node_back")!;
    assertEquals(lost.subject, "box1");
    assertEquals(back.episode, lost.episode, "firing and resolved share the episode");
    assertEquals(back.state, "resolved");
    assertEquals(new Set(got.map((g) => g.delivery)).size, got.length, "each delivery once");
    assertEquals(badSignatures, 0);

    // ctl notify test: one test delivery to each webhook, each answer reported.
    const before = got.length;
    const test = await t.admin("notify/test", { method: "POST" });
    const { data } = await test.json();
    assertEquals(data.length, 1);
    assertEquals(data[0].ok, true);
    assertEquals(data[0].detail, "HTTP 200");
    assertEquals(got.length, before + 1);
    assertEquals(got.at(-1)!.event, "test");

    // A second kill is a new episode.
    await again.close();
    await until(() => count("node_lost") === 2);
    assert(got.filter((g) => g.event === "node_lost")[1]!.episode !== lost.episode);
  } finally {
    await t.close();
    await receiver.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});
