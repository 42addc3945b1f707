/**
 * Compiles the stub NVML (stub_nvml.c, two fake cards) into `dir` and returns the library's path.
 *
 * To point an agent (or `llmgw doctor`) at it, set LLMGW_NVML_LIBRARY=<returned path> in its
 * environment (or the agent setting `gpu.nvml_library`); see stub_nvml.c for the cards' figures
 * and the STUB_NVML_* variables that add processes, hide cards or make init fail.
 *
 * Needs gcc; throws `StubNvmlUnavailable` when there is none. A test that needs the stub sets
 * `ignore: !!stubNvmlUnavailable` and says why in its name (tests/helpers/skip.ts).
 */
import { which } from "../../../core/which.ts";

export class StubNvmlUnavailable extends Error {
  override name = "StubNvmlUnavailable";
}

export const stubNvmlSource = new URL("./stub_nvml.c", import.meta.url);

export async function buildStubNvml(dir: string): Promise<string> {
  const out = `${dir}/libnvidia-ml-stub.so.1`;
  let result: Deno.CommandOutput;
  try {
    result = await new Deno.Command("gcc", {
      args: ["-shared", "-fPIC", "-O1", "-Wall", "-Werror", "-o", out, stubNvmlSource.pathname],
      stdout: "piped",
      stderr: "piped",
    }).output();
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) throw new StubNvmlUnavailable("gcc is not installed");
    throw e;
  }
  if (!result.success) {
    throw new Error(`gcc failed on stub_nvml.c:\n${new TextDecoder().decode(result.stderr)}`);
  }
  return out;
}

/** Why the stub cannot be built on this machine, or undefined when it can. */
export const stubNvmlUnavailable: string | undefined = (await which("gcc"))
  ? undefined
  : "gcc not found";
