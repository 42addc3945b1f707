import { assertEquals } from "../../tests/assert.ts";
import type { StartCommand } from "./replica.ts";
import type { StoredReplica } from "./replica_records.ts";
import { WaitingHeads } from "./waiting_heads.ts";

const row = (id: string, state: StoredReplica["state"]): StoredReplica => ({
  id,
  model: "big",
  node: id.includes(".w") ? "b" : "a",
  nodeId: id.includes(".w") ? "nb" : "na",
  profile: 0,
  gpus: [],
  perCardBytes: 0,
  ramBytes: 1,
  cores: 1,
  specHash: "h",
  state,
  createdAt: 0,
  stateSince: 0,
  inFlight: 0,
});

const head: StartCommand = {
  kind: "start",
  replicaId: "s1",
  model: "big",
  node: "a",
  profile: 0,
  engine: "sim",
  args: [],
  gpus: [],
  perCardBytes: 0,
  ramBytes: 1,
  cores: 1,
  source: "",
  contextLength: 2048,
  slots: 1,
  embeddings: false,
  allowPickle: false,
  specHash: "h",
  reason: "scaling",
  set: { role: "head", head: "a", workers: [{ node: "b", address: "", layers: 3 }] },
  after: ["s1.w1"],
};

Deno.test("waiting heads: sent once every worker is ready and reports its tunnel; then forgotten", () => {
  const heads = new WaitingHeads();
  heads.wait(head, "na");
  const address = (w: StoredReplica) => (w.state === "ready" ? "tls://10.0.0.2:41001" : undefined);
  assertEquals(heads.due([row("s1", "pending"), row("s1.w1", "starting")], address), []);
  const [due] = heads.due([row("s1", "pending"), row("s1.w1", "ready")], address);
  assertEquals(due?.c.set?.workers, [{ node: "b", address: "tls://10.0.0.2:41001", layers: 3 }]);
  assertEquals(heads.due([row("s1", "pending"), row("s1.w1", "ready")], address), [], "sent once");
});

Deno.test("waiting heads: a head not pending any more is dropped; one never waited for is an orphan", () => {
  const heads = new WaitingHeads();
  heads.wait(head, "na");
  assertEquals(heads.due([row("s1.w1", "ready")], () => "tls://x:1"), [], "the head is gone");
  assertEquals(heads.due([row("s1", "pending"), row("s1.w1", "ready")], () => "tls://x:1"), []);
  assertEquals(heads.orphans([row("s1", "pending"), row("s1.w1", "ready"), row("s2", "pending")]), [
    "s1",
  ]);
});
