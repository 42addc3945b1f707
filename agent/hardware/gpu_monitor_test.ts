import { assertEquals, assertMatch } from "../../tests/assert.ts";
import type { GpuReport } from "../../core/protocol/host_report.ts";
import { FakeGpuProbe } from "./gpu_probe.ts";
import { GpuMonitor } from "./gpu_monitor.ts";

const card = (used: number): GpuReport => ({
  source: "nvml",
  gpus: [{ index: 0, uuid: "GPU-1", name: "Fake", memoryUsedBytes: used, processes: [] }],
});

Deno.test("GpuMonitor: keeps the latest sample, samples on its interval, closes the probe", async () => {
  const probe = new FakeGpuProbe([card(1), card(2), card(3)]);
  const monitor = new GpuMonitor(probe, 20);
  assertMatch(monitor.latest().error ?? "", /not been read yet/);
  await monitor.start();
  assertEquals(monitor.latest().gpus[0]?.memoryUsedBytes, 1);
  // Interval sampling, not a fixed sleep: a loaded machine may run the timer late.
  const deadline = Date.now() + 3_000;
  while (monitor.latest().gpus[0]?.memoryUsedBytes !== 3 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
  }
  assertEquals(monitor.latest().gpus[0]?.memoryUsedBytes, 3);
  await monitor.stop();
  const after = probe.samples;
  await new Promise((r) => setTimeout(r, 60));
  assertEquals(probe.samples, after, "no sampling after stop");
  assertEquals(probe.closed, true);
});
