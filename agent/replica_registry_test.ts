import { assertEquals } from "../tests/assert.ts";
import { ReplicaRegistry } from "./replica_registry.ts";

// An upgraded agent must adopt the engines the agent before it started: it reads the registry
// file that agent wrote, under its name (shards.json) and field names (shards, shardId).
Deno.test("replica registry: reads the file today's agent writes", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const record = {
      shardId: "s-01j9",
      engine: "llamacpp",
      model: "qwen",
      pid: 4242,
      procStart: 123456,
      port: 18081,
      baseUrl: "http://127.0.0.1:18081",
      startedAt: 1_700_000_000_000,
    };
    await Deno.writeTextFile(
      `${dir}/shards.json`,
      JSON.stringify({ version: 1, shards: [record] }, null, 2) + "\n",
    );
    assertEquals(new ReplicaRegistry(`${dir}/shards.json`).read(), [record]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
