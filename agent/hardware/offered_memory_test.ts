import { assertEquals } from "../../tests/assert.ts";
import { offered } from "./offered_memory.ts";

const MiB = 1024 ** 2;

Deno.test("offered memory: capped by resources.memory_mb, all of it when 0", () => {
  const host = { os: "linux", ramTotalBytes: 8192 * MiB, ramAvailableBytes: 6000 * MiB, disks: [] };
  assertEquals(offered(host, 0), host);
  const capped = offered(host, 1200);
  assertEquals([capped.ramTotalBytes, capped.ramAvailableBytes], [1200 * MiB, 1200 * MiB]);
  assertEquals(offered(host, 100_000).ramTotalBytes, 8192 * MiB, "never more than it has");
});
