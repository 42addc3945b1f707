import { assert, assertEquals, assertMatch } from "../tests/assert.ts";
import { FakeClock } from "../core/clock.ts";
import { silentLogger } from "../core/log.ts";
import type { AgentMessage } from "../core/protocol/messages.ts";
import { sizeIfThere } from "../core/weights/checksum_file.ts";
import { nodeWeights } from "./weights/mod.ts";
import { hubFixture, shard1 } from "../tests/helpers/hub_fixture.ts";
import { WeightsCommands } from "./weights_commands.ts";

Deno.test("fetch_weights reports progress, touches the replica, answers with the path; remove_weights purges", async () => {
  const fx = await hubFixture();
  const weights = nodeWeights({
    fetch,
    clock: new FakeClock(),
    logger: silentLogger,
    weightsDir: `${fx.dir}/agent`,
    hub: { endpoint: fx.hub.url },
    progressIntervalMs: 0,
  });
  try {
    const sent: AgentMessage[] = [];
    const touched: string[] = [];
    const cmds = new WeightsCommands({
      weights,
      send: (m) => sent.push(m),
      touch: (id) => touched.push(id),
    });
    const pinned = await fx.pin("hf:acme/tiny");
    await cmds.fetch({
      type: "fetch_weights",
      id: "c1",
      source: "hf:acme/tiny",
      pinned,
      replicaId: "s1",
    });
    const result = sent.at(-1)!;
    assert(result.type === "command_result" && result.ok, JSON.stringify(result));
    assertEquals(result.path, `${fx.dir}/agent/acme/tiny/${fx.commit}`);
    const progress = sent.filter((m) => m.type === "weights_progress");
    assert(progress.length > 2, "progress was reported");
    for (const p of progress) {
      assertEquals(p.id, "c1");
      assertEquals(p.replicaId, "s1");
      assert(p.bytesTotal !== null && p.bytesTotal > 2_000_000);
    }
    assert(progress.some((p) => p.phase === "checking"));
    assert(touched.length > 0 && touched.every((t) => t === "s1"));
    assert((await sizeIfThere(`${result.path}/${shard1}`)) === 1_500_000);

    // A bad source is the command's failure in words, not a crash.
    sent.length = 0;
    await cmds.fetch({ type: "fetch_weights", id: "c2", source: "x", pinned: { kind: "hf" } });
    const bad = sent.at(-1)!;
    assert(bad.type === "command_result" && !bad.ok);
    assertMatch(bad.error!, /pinned source is not valid/);

    // Purge with nothing else keeping the files: they go.
    sent.length = 0;
    await cmds.remove({ type: "remove_weights", id: "c3", paths: [], pinned, keep: [] });
    const removed = sent.at(-1)!;
    assert(removed.type === "command_result" && removed.ok, JSON.stringify(removed));
    assertEquals(await sizeIfThere(`${result.path}/${shard1}`), null);
  } finally {
    await weights.close();
    await fx.close();
  }
});
