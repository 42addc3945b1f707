/**
 * How to start this same llmgw program again with another subcommand (the simulated engine, a
 * helper), whether it runs from source or as a `deno compile`d binary.
 */

import { v8Flags } from "./v8_flags.ts";

/**
 * `Deno.build.standalone` is what the runtime itself says about being a compiled binary. Guessing
 * from `Deno.execPath()`'s basename would break for a binary someone names "deno", or a deno
 * installed under another name (`deno-2.9`, a wrapper), so the basename is only the fallback
 * for runtimes that predate the flag.
 */
export function isCompiled(): boolean {
  const standalone = (Deno.build as { standalone?: boolean }).standalone;
  if (typeof standalone === "boolean") return standalone;
  const base = Deno.execPath().split(/[\\/]/).pop() ?? "";
  return base !== "deno" && base !== "deno.exe";
}

/**
 * main.ts is found relative to this module, not through `Deno.mainModule`: under `deno test` the
 * main module is the test file, and from source this module always sits in core/ beside main.ts.
 */
function mainModulePath(): string {
  return decodeURIComponent(new URL("../main.ts", import.meta.url).pathname);
}

/** The command line that runs `llmgw <args...>`. */
export function selfCommand(args: string[]): { cmd: string; args: string[] } {
  if (isCompiled()) return { cmd: Deno.execPath(), args: [...args] };
  return {
    cmd: Deno.execPath(),
    args: ["run", "-A", `--v8-flags=${v8Flags}`, mainModulePath(), ...args],
  };
}

/**
 * Environment a re-invoked llmgw needs when it is started with a cleared environment. From source,
 * deno keeps its compiled-module cache under $HOME; a child whose HOME is a fresh directory would
 * otherwise rebuild that cache on every start, so it is pointed at ours. A compiled binary needs
 * nothing.
 */
export function selfCommandEnv(): Record<string, string> {
  const env: Record<string, string> = { DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" };
  if (isCompiled()) return env;
  const dir = Deno.env.get("DENO_DIR") ?? defaultDenoDir();
  if (dir) env.DENO_DIR = dir;
  return env;
}

function defaultDenoDir(): string | undefined {
  const cache = Deno.env.get("XDG_CACHE_HOME") ??
    (Deno.env.get("HOME") ? `${Deno.env.get("HOME")}/.cache` : undefined);
  if (!cache) return undefined;
  return Deno.build.os === "darwin"
    ? `${Deno.env.get("HOME")}/Library/Caches/deno`
    : `${cache}/deno`;
}
