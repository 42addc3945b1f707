/**
 * Finding an engine's executable and asking it its version. A configured path that is not an
 * executable is said to be so, rather than silently searching PATH: the operator named it.
 */
import { which } from "../../core/which.ts";
import { runCommand } from "../run_command.ts";
import type { Detection, DetectOptions } from "./engine_adapter.ts";

export interface BinarySpec {
  readonly engine: string;
  /** The executable's usual name on PATH. */
  readonly name: string;
  readonly versionArgs: readonly string[];
  /** The version in the tool's output, or undefined when it does not say one. */
  parseVersion(output: string): string | undefined;
  /** `vllm --version` imports all of vLLM: seconds, not milliseconds. */
  readonly versionTimeoutMs: number;
  /**
   * For an engine that is a Python package run by an interpreter: the interpreter alone proves
   * nothing, so without a version (the import failed) the engine is missing, said so here.
   */
  readonly missingWithoutVersion?: string;
}

export async function detectBinary(spec: BinarySpec, opts: DetectOptions = {}): Promise<Detection> {
  const wanted = opts.binary ?? spec.name;
  const found = await which(wanted, opts.path);
  if (!found) {
    return {
      installed: false,
      // A bare name is searched on PATH like the default; only a path was named by hand.
      missing: wanted.includes("/")
        ? `${wanted} (configured) is not an executable file`
        : `${wanted} not on PATH`,
    };
  }
  const run = opts.run ?? runCommand(spec.versionTimeoutMs);
  const res = await run(found, [...spec.versionArgs]);
  const version = spec.parseVersion(res.output);
  if (version === undefined && spec.missingWithoutVersion) {
    return { installed: false, missing: `${found}: ${spec.missingWithoutVersion}` };
  }
  return version === undefined
    ? { installed: true, binary: found }
    : { installed: true, binary: found, version };
}
