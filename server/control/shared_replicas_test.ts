import { assertEquals } from "../../tests/assert.ts";
import { FakeClock } from "../../core/clock.ts";
import { silentLogger } from "../../core/log.ts";
import { openStore } from "../../db/store.ts";
import { routableReplicas } from "../../db/schema.ts";
import { ReplicaTable } from "../router/replicas.ts";
import { soleLeader } from "./leadership.ts";
import { SharedReplicas } from "./shared_replicas.ts";

/**
 * A control plane restarted after SIGKILL finds the rows its earlier run published. Mirrored
 * until the node says hello, they must go when it does: the node may then replace the engine they
 * name (its settings changed), and a request routed there meanwhile got a 502 (the flaky
 * tests/e2e/shutdown_test.ts "SIGKILL 1.5 s after a request completes").
 */
Deno.test("rows about a node go as soon as the node says hello, and stay gone", async () => {
  const dir = await Deno.makeTempDir();
  const store = await openStore(`${dir}/llmgw.db`);
  try {
    const clock = new FakeClock();
    const replicas = new ReplicaTable({ now: () => clock.now() });
    const connected = new Set<string>();
    const shared = new SharedReplicas({
      store,
      clock,
      logger: silentLogger,
      leadership: { ...soleLeader("http://cp.test"), isLeader: false },
      replicas,
      ownIds: () => new Set(),
      ownNodes: () => new Set(connected),
      apiKeyOf: () => "k",
      everyMs: 1_000,
      keepMs: () => 60_000,
      want: () => () => {},
      demandMs: () => 1_000,
    });
    await store.write((tx) =>
      tx.insert(routableReplicas).values([
        {
          id: "n1/r1",
          model: "demo",
          baseUrl: "http://127.0.0.1:9",
          state: "ready",
          slots: 4,
          publishedAt: clock.now(),
        },
        {
          id: "n2/r1",
          model: "demo",
          baseUrl: "http://127.0.0.1:10",
          state: "ready",
          slots: 4,
          publishedAt: clock.now(),
        },
      ])
    );
    await shared.step();
    assertEquals(replicas.list().map((r) => r.id).sort(), ["n1/r1", "n2/r1"]);

    // The hub calls this before its welcome, then counts the node as connected.
    shared.forgetNode("n1");
    connected.add("n1");
    assertEquals(
      replicas.list().map((r) => r.id),
      ["n2/r1"],
      "gone at the hello, not a step later",
    );
    await shared.step();
    assertEquals(replicas.list().map((r) => r.id), ["n2/r1"], "not mirrored back while n1 is ours");
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
