/**
 * `llmgw doctor` in-process, on a node made of stubs: the stub NVML (two cards), a fake
 * llama-server on PATH, no vllm. Then a CPU-only node: no NVML, no nvidia-smi.
 */
import { assert, assertEquals, assertMatch } from "../tests/assert.ts";
import { doctorCommand, type DoctorReport } from "./doctor.ts";
import { buildStubNvml, stubNvmlUnavailable } from "./hardware/testdata/build_stub_nvml.ts";
import { skipNote } from "../tests/helpers/skip.ts";

async function doctor(args: string[], env: Record<string, string>): Promise<string> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, Deno.env.get(k)]));
  const out: string[] = [];
  const log = console.log;
  console.log = (...a: unknown[]) => out.push(a.join(" "));
  for (const [k, v] of Object.entries(env)) Deno.env.set(k, v);
  try {
    assertEquals(await doctorCommand.run(args), 0);
  } finally {
    console.log = log;
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) Deno.env.delete(k);
      else Deno.env.set(k, v);
    }
  }
  return out.join("\n");
}

Deno.test({
  name: "doctor: a GPU node made of stubs shows its cards, engines with versions, what is missing" +
    skipNote(stubNvmlUnavailable),
  ignore: !!stubNvmlUnavailable,
}, async () => {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-doctor-" });
  try {
    const nvml = await buildStubNvml(dir);
    const bin = `${dir}/bin`;
    await Deno.mkdir(bin);
    await Deno.writeTextFile(
      `${bin}/llama-server`,
      "#!/bin/sh\necho 'version: 6134 (9c4a2d1b)' >&2\necho 'built with cc' >&2\n",
    );
    await Deno.chmod(`${bin}/llama-server`, 0o755);
    // The Python engines' interpreter is named, so a python3 on this machine does not count.
    const env = {
      LLMGW_NVML_LIBRARY: nvml,
      PATH: `${bin}:/usr/bin:/bin`,
      LLMGW_AGENT_DATA: dir,
      LLMGW_ENGINES_SGLANG: `${dir}/no-python`,
      LLMGW_ENGINES_TRTLLM: `${dir}/no-python`,
    };

    const text = await doctor([], env);
    assertMatch(text, /GPUs \(source: nvml, driver 550\.54\.15, CUDA 12\.4\)/);
    assertMatch(text, /0 {2}NVIDIA GeForce RTX 4090 {2}GPU-11111111/);
    assertMatch(
      text,
      /24\.0 GiB \(23\.0 GiB free\), 37% busy, 45 C, 120\/450 W, compute 8\.9, PCIe Gen4 x16/,
    );
    assertMatch(text, /1 {2}NVIDIA H100 80GB HBM3/);
    assertMatch(text, /llamacpp +b6134 \(9c4a2d1b\) +.*\/bin\/llama-server/);
    assertMatch(text, /vllm +not installed: vllm not on PATH/);
    assertMatch(text, /Missing\n.*vllm: not installed \(vllm not on PATH\)/);
    assert(!text.includes("GPU engines"), "a GPU node is not told it has no GPU");

    const report = JSON.parse(await doctor(["--json"], env)) as DoctorReport;
    assertEquals(report.gpu.source, "nvml");
    assertEquals(report.gpu.gpus.map((g) => g.memoryTotalBytes), [24 * 1024 ** 3, 80 * 1024 ** 3]);
    assert(!("temperatureC" in report.gpu.gpus[1]!));
    assertEquals(report.engines.map((e) => e.name).sort(), ["llamacpp", "sim"]);
    assertEquals(report.engines.find((e) => e.name === "llamacpp")?.version, "b6134 (9c4a2d1b)");
    assertEquals(report.missing, [
      "vllm: not installed (vllm not on PATH)",
      `sglang: not installed (${dir}/no-python (configured) is not an executable file)`,
      `trtllm: not installed (${dir}/no-python (configured) is not an executable file)`,
      "tei: not installed (text-embeddings-router not on PATH)",
    ]);
    assert(report.host.disks.some((d) => d.purpose === "weights"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("doctor: a CPU-only node is told that GPU engines have no GPU", async () => {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-doctor-" });
  try {
    const report = JSON.parse(
      await doctor(["--json"], {
        LLMGW_NVML_LIBRARY: `${dir}/absent-libnvidia-ml.so.1`,
        LLMGW_NVIDIA_SMI: `${dir}/absent-nvidia-smi`,
        PATH: "/nonexistent",
        LLMGW_AGENT_DATA: dir,
      }),
    ) as DoctorReport;
    assertEquals(report.gpu, { source: "none", gpus: [] });
    assertEquals(report.missing, [
      "GPU engines: no NVIDIA GPU",
      "llamacpp: not installed (llama-server not on PATH)",
      "vllm: not installed (vllm not on PATH)",
      "sglang: not installed (python3 not on PATH)",
      "trtllm: not installed (python3 not on PATH)",
      "tei: not installed (text-embeddings-router not on PATH)",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
