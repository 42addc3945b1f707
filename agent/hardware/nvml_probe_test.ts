/**
 * The real NVML path (Deno.dlopen, struct layouts, error codes) against a stub libnvidia-ml
 * compiled here with gcc: two cards with known figures, temperature unsupported on card 1.
 */
import { assert, assertEquals, assertMatch } from "../../tests/assert.ts";
import { gpuReportSchema } from "../../core/protocol/host_report.ts";
import { buildStubNvml, StubNvmlUnavailable } from "./testdata/build_stub_nvml.ts";
import { openGpuProbe } from "./open_gpu_probe.ts";
import { openNvml } from "./nvml_library.ts";
import { NvmlProbe } from "./nvml_probe.ts";
import { skipNote } from "../../tests/helpers/skip.ts";

const GiB = 1024 ** 3;
const dir = await Deno.makeTempDir({ prefix: "llmgw-nvml-" });
let stub: string | undefined;
let skip = "";
try {
  stub = await buildStubNvml(dir);
} catch (e) {
  if (!(e instanceof StubNvmlUnavailable)) throw e;
  skip = e.message;
}
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));

function withEnv<T>(vars: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  for (const [k, v] of Object.entries(vars)) Deno.env.set(k, v);
  return fn().finally(() => Object.keys(vars).forEach((k) => Deno.env.delete(k)));
}

Deno.test({
  name: "NVML: two cards with their figures; an unsupported call leaves only that field absent" +
    skipNote(skip),
  ignore: !stub,
  async fn() {
    const opened = openNvml(stub!);
    assert(opened.kind === "ok", JSON.stringify(opened));
    const probe = new NvmlProbe(opened.lib);
    try {
      const report = await withEnv(
        { STUB_NVML_PROCS: `0:${Deno.pid}:1073741824,1:4242:na,1:4243:5` },
        () => probe.sample(),
      );
      gpuReportSchema.parse(report);
      assertEquals(report.source, "nvml");
      assertEquals(report.driverVersion, "550.54.15");
      assertEquals(report.cudaVersion, "12.4");
      assertEquals(report.error, undefined);
      assertEquals(report.gpus.length, 2);
      const [a, b] = report.gpus;
      assertEquals(a, {
        index: 0,
        uuid: "GPU-11111111-2222-3333-4444-555555555555",
        name: "NVIDIA GeForce RTX 4090",
        processes: [{ pid: Deno.pid, usedMemoryBytes: GiB }],
        memoryTotalBytes: 24 * GiB,
        memoryFreeBytes: 23 * GiB,
        memoryUsedBytes: 1 * GiB,
        utilizationPercent: 37,
        temperatureC: 45,
        powerDrawW: 120,
        powerLimitW: 450,
        computeCapability: "8.9",
        pcieMaxGen: 4,
        pcieMaxWidth: 16,
      });
      assertEquals(b?.name, "NVIDIA H100 80GB HBM3");
      assertEquals(b?.memoryTotalBytes, 80 * GiB);
      assertEquals(b?.utilizationPercent, 0, "a real 0 stays 0");
      assert(b && !("temperatureC" in b), "an unsupported temperature is absent, not 0");
      assertEquals(b?.computeCapability, "9.0");
      assertEquals(b?.pcieMaxGen, 5);
      assertEquals(b?.processes, [{ pid: 4242 }, { pid: 4243, usedMemoryBytes: 5 }]);

      // Many processes: the first count is too small for the second call (INSUFFICIENT_SIZE).
      const many = Array.from({ length: 40 }, (_, i) => `0:${1000 + i}:${i}`).join(",");
      const again = await withEnv({ STUB_NVML_PROCS: many }, () => probe.sample());
      assertEquals(again.gpus[0]?.processes.length, 40);
      assertEquals(again.gpus[1]?.processes, []);
    } finally {
      await probe.close();
    }
  },
});

Deno.test({
  name: "NVML: init failure is an error in NVML's words, and a later sample retries init" +
    skipNote(skip),
  ignore: !stub,
  async fn() {
    const probe = await openGpuProbe({ nvmlLibrary: stub!, nvidiaSmi: "/nonexistent/nvidia-smi" });
    try {
      assertEquals(probe.source, "nvml");
      const broken = await withEnv({ STUB_NVML_INIT_ERROR: "18" }, () => probe.sample());
      assertEquals(broken.gpus, []);
      assertMatch(broken.error ?? "", /NVML could not start: .*version mismatch.*error 18/);
      assertMatch(broken.error ?? "", /reboot/);
      const healed = await probe.sample();
      assertEquals(healed.error, undefined);
      assertEquals(healed.gpus.length, 2);
    } finally {
      await probe.close();
    }
    const closed = await probe.sample();
    assertMatch(closed.error ?? "", /closed/);
  },
});

Deno.test("NVML: a missing library and no nvidia-smi is a node without GPUs, not an error", async () => {
  const probe = await openGpuProbe({
    nvmlLibrary: `${dir}/no-such-libnvidia-ml.so.1`,
    nvidiaSmi: "/nonexistent/nvidia-smi",
  });
  const report = await probe.sample();
  assertEquals(report, { source: "none", gpus: [] });
});

Deno.test("NVML: a library that is there but broken is an error, not 'no GPU'", async () => {
  const bogus = `${dir}/libnvidia-ml-broken.so.1`;
  await Deno.writeTextFile(bogus, "not an ELF file\n");
  const probe = await openGpuProbe({ nvmlLibrary: bogus, nvidiaSmi: "/nonexistent/nvidia-smi" });
  const report = await probe.sample();
  assertEquals(report.source, "none");
  assertEquals(report.gpus, []);
  assertMatch(report.error ?? "", /cannot be used/);
});
