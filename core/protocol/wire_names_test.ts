import { assertEquals } from "../../tests/assert.ts";
import { agentMessageSchema, decodeMessage, serverMessageSchema } from "./messages.ts";
import { forPeer } from "./wire_names.ts";

const report = { model: "m", engine: "sim", state: "ready", baseUrl: "http://x", pid: 1 };

Deno.test("wire names: messages in the older names decode into today's", () => {
  const heartbeat = decodeMessage(
    agentMessageSchema,
    JSON.stringify({ type: "heartbeat", shards: [{ shardId: "s1", ...report }] }),
  );
  assertEquals(heartbeat.ok && heartbeat.message, {
    type: "heartbeat",
    replicas: [{ replicaId: "s1", ...report }],
    warnings: [],
  });
  const state = decodeMessage(
    agentMessageSchema,
    JSON.stringify({ type: "shard_state", shard: { shardId: "s1", ...report } }),
  );
  assertEquals(state.ok && state.message, {
    type: "replica_state",
    replica: { replicaId: "s1", ...report },
  });
  const stop = decodeMessage(
    serverMessageSchema,
    JSON.stringify({ type: "stop_shard", id: "c1", shardId: "s1" }),
  );
  assertEquals(stop.ok && stop.message, { type: "stop_replica", id: "c1", replicaId: "s1" });
});

Deno.test("wire names: a peer of protocol 1 gets the older names; free text is left alone", () => {
  const spec = {
    replicaId: "r1",
    model: "m",
    engine: "sim",
    args: ["--shard", "shards"],
    apiKey: "k".repeat(16),
  };
  assertEquals(forPeer({ type: "start_replica", id: "c1", spec }, 1), {
    type: "start_shard",
    id: "c1",
    spec: {
      ...Object.fromEntries(Object.entries(spec).filter(([k]) => k !== "replicaId")),
      shardId: "r1",
    },
  });
  const hello = { type: "hello", protocol: 2, version: "1", labels: { shard: "a", replicas: "b" } };
  assertEquals(forPeer(hello, 1), hello);
  const start = { type: "start_replica", id: "c1", spec };
  assertEquals(forPeer(start, 2), start);
  // What a peer of protocol 1 is sent, read back by today's schema, is what was meant.
  const back = decodeMessage(serverMessageSchema, JSON.stringify(forPeer(start, 1)));
  assertEquals(back.ok && back.message, start);
});
