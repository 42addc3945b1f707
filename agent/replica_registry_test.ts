import { assert, assertEquals } from "../tests/assert.ts";
import { ReplicaRegistry } from "./replica_registry.ts";

const record = {
  engine: "llamacpp",
  model: "qwen",
  pid: 4242,
  procStart: 123456,
  port: 18081,
  baseUrl: "http://127.0.0.1:18081",
  startedAt: 1_700_000_000_000,
};

// An upgraded agent must adopt the engines the agent before it started: it reads the registry
// file that agent wrote, under its name (shards.json) and field names (shards, shardId).
Deno.test("replica registry: reads the file the release before wrote, then writes its own and removes that one", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/shards.json`,
      JSON.stringify({ version: 1, shards: [{ shardId: "s-01j9", ...record }] }, null, 2) + "\n",
    );
    const registry = new ReplicaRegistry(`${dir}/replicas.json`, `${dir}/shards.json`);
    const read = registry.read();
    assertEquals(read, [{ replicaId: "s-01j9", ...record }]);
    registry.write(read);
    assertEquals(new ReplicaRegistry(`${dir}/replicas.json`).read(), read);
    assert(
      !(await exists(`${dir}/shards.json`)),
      "the older file is gone once the new one is written",
    );
    // Once written, the new file is the truth even if an older one appears again.
    await Deno.writeTextFile(`${dir}/shards.json`, JSON.stringify({ version: 1, shards: [] }));
    assertEquals(registry.read(), read);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}
