import { assert, assertEquals } from "../../tests/assert.ts";
import { FakeClock } from "../../core/clock.ts";
import { startHarness } from "../../tests/helpers/harness.ts";
import { Breaker } from "./breaker.ts";
import { batchPicker } from "./profile_batch.ts";
import { longContextPicker } from "./profile_long_context.ts";
import { ReplicaTable } from "./replicas.ts";

Deno.test("profiles: batch takes the shortest known queue over an unknown one; long-context the most free cache", () => {
  const table = new ReplicaTable();
  const a = table.upsert({ id: "a", model: "m", baseUrl: "http://a", apiKey: "", state: "ready" });
  const b = table.upsert({ id: "b", model: "m", baseUrl: "http://b", apiKey: "", state: "ready" });
  const input = { candidates: [a, b], sessionKey: undefined, residents: () => 0, now: 0 };
  // a is unknown, b reports an empty queue: unknown is not zero.
  b.load = { known: true, running: 0, waiting: 0, kvCacheUsage: 0.9, readAt: 0 };
  assertEquals(batchPicker.pick(input).id, "b");
  // b's engine reports a queue the router did not send (other clients).
  b.load = { known: true, running: 4, waiting: 3, kvCacheUsage: 0.9, readAt: 0 };
  assertEquals(batchPicker.pick(input).id, "a");
  assertEquals(longContextPicker.pick(input).id, "a");
  a.load = { known: true, running: 0, waiting: 0, kvCacheUsage: 0.95, readAt: 0 };
  assertEquals(longContextPicker.pick(input).id, "b");
});

Deno.test("a breaker opens after N failures, lets one probe through after its cool-down, and closes on success", () => {
  const clock = new FakeClock();
  const br = new Breaker(3, 1000, () => clock.now());
  br.failure();
  br.failure();
  assertEquals(br.state(), "closed");
  br.failure();
  assertEquals(br.state(), "open");
  assertEquals(br.available(), false);
  clock.advance(1000);
  assertEquals(br.state(), "half-open");
  assertEquals(br.available(), true);
  br.take();
  assertEquals(br.available(), false, "only one probe");
  br.failure();
  assertEquals(br.state(), "open");
  clock.advance(1000);
  br.take();
  br.success();
  assertEquals(br.state(), "closed");
  br.trip();
  assertEquals(br.state(), "open");
});

Deno.test("the admin API shows each replica's load and never its key", async () => {
  const h = await startHarness();
  try {
    h.deps.replicas.setLoad("r1", {
      known: true,
      running: 1,
      waiting: 0,
      kvCacheUsage: 0.25,
      readAt: 1,
    });
    const res = await h.app.request("/api/v1/models", {
      headers: { authorization: `Bearer ${h.adminToken}` },
    });
    const text = await res.text();
    assert(!text.includes("engine-secret"));
    const demo = JSON.parse(text).data.find((m: { name: string }) => m.name === "demo");
    assertEquals(demo.replicas[0].id, "r1");
    assertEquals(demo.replicas[0].load.kvCacheUsage, 0.25);
    assertEquals(demo.replicas[0].inFlight, 0);
    assertEquals(demo.replicas[0].slots, 4);
    assertEquals(demo.replicas[0].breaker, "closed");
    assertEquals(demo.queued, 0);
  } finally {
    await h.close();
  }
});
