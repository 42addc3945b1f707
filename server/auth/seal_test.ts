/** Sealing under the cluster secret: a round trip, and nothing opens what it did not seal. */
import { assert, assertEquals } from "../../tests/assert.ts";
import { Sealer } from "./seal.ts";

const secret = (s: string) => () => Promise.resolve(s);

Deno.test("a sealed value opens with its key and purpose only, and hides its text", async () => {
  const a = new Sealer(secret("cluster-a"), "mcp person tokens");
  const sealed = await a.seal("access-token-123");
  assert(!sealed.includes("access-token-123"));
  assert(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(sealed), sealed);
  assertEquals(await a.unseal(sealed), "access-token-123");
  assert(sealed !== await a.seal("access-token-123"), "a fresh IV each time");

  assertEquals(await new Sealer(secret("cluster-b"), "mcp person tokens").unseal(sealed), null);
  assertEquals(await new Sealer(secret("cluster-a"), "another purpose").unseal(sealed), null);
  const [v, iv, data] = sealed.split(".");
  const flipped = data!.slice(0, -2) + (data!.at(-2) === "A" ? "B" : "A") + data!.at(-1);
  assertEquals(await a.unseal(`${v}.${iv}.${flipped}`), null, "altered text does not open");
  assertEquals(await a.unseal("not sealed"), null);
});

Deno.test("a cluster secret that cannot be read fails the seal, and is tried again later", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const s = Sealer.fromDataDir(dir, "p");
    const err = await s.seal("x").then(() => "sealed", (e: Error) => e.message);
    assertEquals(err, "the cluster secret cannot be read");
    await Deno.writeTextFile(`${dir}/cluster.secret`, "now-there\n");
    assertEquals(await s.unseal(await s.seal("x")), "x");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
