/**
 * Runs `llmgw <args>` as a child process (with a cleared environment plus what is given), keeps
 * what it prints, and waits for lines in it: how the node tests drive a control plane and agents.
 */
import { selfCommand, selfCommandEnv } from "../../core/self_command.ts";
import { reap, suiteMark } from "../leftovers.ts";

export interface LlmgwProcess {
  readonly pid: number;
  output(): string;
  /** Resolves with the first match of `re` in the output, or rejects with the output. */
  waitFor(re: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  readonly status: Promise<Deno.CommandStatus>;
  kill(signal?: Deno.Signal): Promise<Deno.CommandStatus>;
}

export function spawnLlmgw(
  args: string[],
  env: Record<string, string> = {},
  label = args[0] ?? "llmgw",
): LlmgwProcess {
  const { cmd, args: full } = selfCommand(args);
  // Every process it starts carries this mark, so what is left after a full stop can be found.
  const owner = crypto.randomUUID();
  const suite = Deno.env.get(suiteMark);
  const child = new Deno.Command(cmd, {
    args: full,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    clearEnv: true,
    env: {
      ...selfCommandEnv(),
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      [ownerMark]: owner,
      ...(suite ? { [suiteMark]: suite } : {}),
      ...env,
    },
  }).spawn();
  let text = "";
  const pump = async (s: ReadableStream<Uint8Array>) => {
    for await (const chunk of s.pipeThrough(new TextDecoderStream())) {
      text += chunk;
      if (Deno.env.get("LLMGW_TEST_ECHO")) {
        for (const line of chunk.split("\n").filter(Boolean)) console.error(`[${label}] ${line}`);
      }
    }
  };
  const pumps = Promise.all([pump(child.stdout), pump(child.stderr)]);
  const status = child.status.then(async (s) => {
    await pumps;
    return s;
  });
  return {
    pid: child.pid,
    output: () => text,
    status,
    async waitFor(re, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      let exited = false;
      status.then(() => exited = true);
      while (Date.now() < deadline) {
        const m = re.exec(text);
        if (m) return m;
        if (exited) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`${label}: no ${re} in its output${exited ? " (it exited)" : ""}:\n${text}`);
    },
    async kill(signal = "SIGINT") {
      try {
        child.kill(signal);
      } catch {
        // Already gone.
      }
      const ended = await status;
      // SIGINT is a full stop: the engines go with their agent. (SIGTERM and SIGKILL leave them
      // for the next agent to adopt, which the tests that send them go on to check.)
      if (signal === "SIGINT") await noneLeft(label, owner);
      return ended;
    },
  };
}

const ownerMark = "LLMGW_TEST_OWNER";

/** Fails (having killed them) when processes started under `owner` outlive a full stop. */
async function noneLeft(label: string, owner: string): Promise<void> {
  const left = await reap(ownerMark, owner, 40);
  if (left.length === 0) return;
  throw new Error(
    `${label} left ${left.length} process(es) running after SIGINT:\n  ${left.join("\n  ")}`,
  );
}

/** True while `pid` is a live process (not gone, not a zombie). */
export function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(Deno.readTextFileSync(`/proc/${pid}/stat`));
  } catch {
    return false;
  }
}

/** Polls `fn` until it returns a value other than undefined; throws with `what` on timeout. */
export async function eventually<T>(
  what: string,
  fn: () => Promise<T | undefined>,
  timeoutMs = 20_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${last}` : ""}`);
}

export { loopbackListeners } from "../../server/setup/loopback_listeners.ts";

/**
 * Agent flags for a quick test: channel pings and reconnects, and GPU samples, in fractions of a
 * second.
 */
export const quickAgentFlags: readonly string[] = [
  "--channel-idle-ms",
  "1000",
  "--channel-answer-ms",
  "1000",
  "--channel-reconnect-max-ms",
  "500",
  "--gpu-sample-interval-ms",
  "500",
];
