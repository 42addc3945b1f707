/**
 * Runs a real `llmgw up` as a child process on a random port, the way a person would, and reads
 * the address from what it prints and the API key from where `up` keeps it.
 */
import { selfCommand, selfCommandEnv } from "../../core/self_command.ts";
import { loopbackListeners } from "./llmgw_process.ts";

export interface Appliance {
  url: string;
  key: string;
  dataDir: string;
  /** The `llmgw up` process, for a signal sent while a stop is under way. */
  pid: number;
  /** Everything printed so far, stdout and stderr. */
  output(): string;
  /** Ctrl-C, then wait for a clean exit; returns the exit code. */
  stop(): Promise<number>;
  /** Sends a signal (SIGTERM, SIGKILL, …) and waits for the exit; returns the exit code. */
  kill(signal: Deno.Signal): Promise<number>;
}

export async function startAppliance(
  opts: {
    args?: string[];
    dataDir?: string;
    env?: Record<string, string>;
    timeoutMs?: number;
    /** A command the appliance runs under, e.g. `["prlimit", "--nofile=1024:1024"]`. */
    wrap?: string[];
  } = {},
): Promise<Appliance> {
  const dataDir = opts.dataDir ?? (await Deno.makeTempDir({ prefix: "llmgw-e2e-" }));
  const { cmd, args } = selfCommand([
    "up",
    "--data",
    dataDir,
    ...loopbackListeners,
    "--usage-flush-interval-ms",
    "50",
    ...(opts.args ?? []),
  ]);
  const [run, ...runArgs] = [...(opts.wrap ?? []), cmd, ...args];
  const child = new Deno.Command(run!, {
    args: runArgs,
    stdout: "piped",
    stderr: "piped",
    env: { ...selfCommandEnv(), ...(opts.env ?? {}) },
  }).spawn();
  let text = "";
  const pump = async (s: ReadableStream<Uint8Array>) => {
    for await (const chunk of s.pipeThrough(new TextDecoderStream())) text += chunk;
  };
  const pumps = Promise.all([pump(child.stdout), pump(child.stderr)]);
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  let url = "";
  while (Date.now() < deadline) {
    url = /llmgw is up on (\S+)/.exec(text)?.[1] ?? "";
    if (url) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  if (!url) {
    child.kill("SIGKILL");
    await child.status;
    await pumps;
    throw new Error(`llmgw up did not come up:\n${text}`);
  }
  // Printed in full only by the run that made it; every run can read it where `up` keeps it.
  const key = (await Deno.readTextFile(`${dataDir}/local.key`)).trim();
  let stopped: Promise<number> | undefined;
  const kill = (signal: Deno.Signal) => {
    stopped ??= (async () => {
      child.kill(signal);
      const status = await child.status;
      await pumps;
      return status.code;
    })();
    return stopped;
  };
  return {
    url,
    key,
    dataDir,
    pid: child.pid,
    output: () => text,
    stop: () => kill("SIGINT"),
    kill,
  };
}
