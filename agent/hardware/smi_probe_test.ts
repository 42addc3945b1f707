/** The nvidia-smi fallback against a stub script that behaves like an old driver's. */
import { assert, assertEquals, assertMatch } from "../../tests/assert.ts";
import { gpuReportSchema } from "../../core/protocol/host_report.ts";
import { openGpuProbe } from "./open_gpu_probe.ts";
import { parseRequiredRows, smiNumber } from "./smi_parse.ts";
import { SmiProbe } from "./smi_probe.ts";

const stub = new URL("./testdata/stub_nvidia_smi.sh", import.meta.url).pathname;
const MiB = 1024 * 1024;

Deno.test("nvidia-smi: an old driver's odd output keeps both cards, unknown values are absent", async () => {
  const log = await Deno.makeTempFile({ prefix: "llmgw-smi-log-" });
  Deno.env.set("STUB_SMI_LOG", log);
  try {
    const probe = await openGpuProbe({
      nvmlLibrary: "/nonexistent/libnvidia-ml.so.1",
      nvidiaSmi: stub,
    });
    assert(probe instanceof SmiProbe);
    const report = gpuReportSchema.parse(await probe.sample());
    assertEquals(report.source, "nvidia-smi");
    assertEquals(report.error, undefined);
    assertEquals(report.driverVersion, "470.82.01");
    assertEquals(report.cudaVersion, "11.4");
    const [t4, k80] = report.gpus;
    assertEquals(t4, {
      index: 0,
      uuid: "GPU-0000aaaa-0000-0000-0000-000000000000",
      name: "Tesla T4",
      memoryTotalBytes: 15109 * MiB,
      memoryUsedBytes: 2048 * MiB,
      memoryFreeBytes: 13061 * MiB,
      processes: [{ pid: 1234, usedMemoryBytes: 2048 * MiB }],
      utilizationPercent: 37,
      temperatureC: 45,
      powerDrawW: 27.53,
      powerLimitW: 70,
      pcieMaxGen: 3,
      pcieMaxWidth: 16,
    });
    assertEquals(k80, {
      index: 1,
      uuid: "GPU-0000bbbb-0000-0000-0000-000000000000",
      name: "Tesla K80, rev B",
      memoryTotalBytes: 11441 * MiB,
      memoryFreeBytes: 11441 * MiB,
      processes: [{ pid: 5678 }],
      powerLimitW: 149,
      pcieMaxGen: 3,
    });

    // The refused field is not asked again; the others are asked together once it is dropped.
    await Deno.writeTextFile(log, "");
    const second = await probe.sample();
    assertEquals(second.gpus.length, 2);
    const calls = (await Deno.readTextFile(log)).trim().split("\n");
    assert(!calls.some((c) => c.includes("compute_cap")), calls.join("\n"));
    assert(calls.some((c) => c.includes("utilization.gpu,temperature.gpu,power.draw")));
    assert(!calls.some((c) => c === ""), "the CUDA version is read once");
  } finally {
    Deno.env.delete("STUB_SMI_LOG");
    await Deno.remove(log);
  }
});

Deno.test("nvidia-smi: a failing nvidia-smi is a broken driver, reported in its words", async () => {
  Deno.env.set("STUB_SMI_FAIL", "1");
  try {
    const report = await new SmiProbe(stub).sample();
    assertEquals(report.gpus, []);
    assertMatch(report.error ?? "", /nvidia-smi failed: .*couldn't communicate/);
  } finally {
    Deno.env.delete("STUB_SMI_FAIL");
  }
});

Deno.test("nvidia-smi parsing: N/A, Not Supported and blanks are unknown, rows that do not parse are skipped", () => {
  for (const v of ["[N/A]", "[Not Supported]", "N/A", "", "  ", "abc", undefined]) {
    assertEquals(smiNumber(v), undefined, String(v));
  }
  assertEquals(smiNumber(" 12.5 "), 12.5);
  assertEquals(smiNumber("0"), 0);
  const cards = parseRequiredRows(
    "garbage\n[N/A], GPU-x, A, 1, 1, 0\n2, GPU-y, B, 10, [N/A], [N/A]\n3, [N/A], C, 1, 1, 1\n",
  );
  assertEquals(cards, [{
    index: 2,
    uuid: "GPU-y",
    name: "B",
    memoryTotalBytes: 10 * MiB,
    processes: [],
  }]);
});
