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

// The next agent adopts what this one started from this file; anything else in its place is
// no registry at all (a hint for cleanup, never a truth to act on).
Deno.test("replica registry: what is written is read back; an unknown or broken file is empty", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const registry = new ReplicaRegistry(`${dir}/replicas.json`);
    assertEquals(registry.read(), []);
    registry.write([{ replicaId: "r-01j9", ...record }]);
    assertEquals(new ReplicaRegistry(`${dir}/replicas.json`).read(), [
      { replicaId: "r-01j9", ...record },
    ]);
    const mode = (await Deno.stat(`${dir}/replicas.json`)).mode! & 0o777;
    assertEquals(mode, 0o600);
    await Deno.writeTextFile(`${dir}/replicas.json`, JSON.stringify({ version: 1, shards: [] }));
    assertEquals(registry.read(), []);
    await Deno.writeTextFile(`${dir}/replicas.json`, "{half");
    assertEquals(registry.read(), []);
    assert(!(await exists(`${dir}/shards.json`)));
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
