import { assert, assertEquals } from "../tests/assert.ts";
import {
  clockTicks,
  parseStatCpuTicks,
  parseStatusMemory,
  readCpu,
  readMemory,
} from "./proc_stats.ts";

Deno.test("CPU ticks are read after the command name, even one with spaces and parentheses", () => {
  const stat = "4242 (deno (x) y) S 1 4242 4242 0 -1 4194560 900 0 0 0 1234 567 0 0 20 0 9 0";
  assertEquals(parseStatCpuTicks(stat), 1234 + 567);
});

Deno.test("resident memory now and at its peak, from /proc/<pid>/status", () => {
  const status = "Name:\tdeno\nVmPeak:\t  900 kB\nVmHWM:\t  2048 kB\nVmRSS:\t  1024 kB\n";
  assertEquals(parseStatusMemory(status), { rss: 1024 * 1024, hwm: 2048 * 1024 });
});

Deno.test({
  name: "this process's own accounting reads back and grows with work",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const hz = await clockTicks();
    assert(hz > 0);
    const before = await readCpu(Deno.pid, hz);
    const until = performance.now() + 150;
    let x = 0;
    while (performance.now() < until) x += Math.sqrt(x + 1);
    const after = await readCpu(Deno.pid, hz);
    assert(after.ms > before.ms, `cpu did not grow (${before.ms} -> ${after.ms}, ${x})`);
    const mem = await readMemory(Deno.pid);
    assert(mem.rss > 1024 * 1024 && mem.hwm >= mem.rss);
  },
});
