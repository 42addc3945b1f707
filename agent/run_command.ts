/** Running a short-lived tool (nvidia-smi, `llama-server --version`) with a time limit. */
import { signalGroup } from "./proc_tree.ts";

export interface CommandResult {
  readonly ok: boolean;
  /** stdout and stderr together: nvidia-smi prints its errors on stdout. */
  readonly output: string;
}

export type RunCommand = (cmd: string, args: string[]) => Promise<CommandResult>;

/** How long output may keep coming after the tool itself exited (a child still holding a pipe). */
const drainMs = 300;

/**
 * Time-boxed as a whole, children included: nvidia-smi on a sick card can hang for minutes, and a
 * tool whose `--version` leaves a child holding the output pipe would keep the pipe open (and the
 * agent's start waiting) for as long as that child lives. The tool runs in its own process group,
 * which is killed once it is done or out of time.
 */
export function runCommand(timeoutMs = 5_000): RunCommand {
  return async (cmd, args) => {
    let child: Deno.ChildProcess;
    try {
      child = new Deno.Command(cmd, {
        args,
        stdout: "piped",
        stderr: "piped",
        stdin: "null",
        detached: true,
      }).spawn();
    } catch (e) {
      return { ok: false, output: e instanceof Error ? e.message : String(e) };
    }
    const out = { text: "" };
    const readers = [child.stdout.getReader(), child.stderr.getReader()];
    const pumps = Promise.all(readers.map((r) => pump(r, out)));
    const deadline = Date.now() + timeoutMs;
    const status = await within(child.status, timeoutMs);
    await within(pumps, status ? Math.min(drainMs, deadline - Date.now()) : 0);
    // Whatever of its group is left (the tool itself when it hung, or a child it left) goes now.
    try {
      signalGroup(child.pid, "SIGKILL");
    } catch {
      // not a group we may signal
    }
    for (const r of readers) await r.cancel().catch(() => {});
    await pumps;
    const final = status ?? await child.status;
    return {
      ok: status !== undefined && final.success,
      output: status ? out.text : `${out.text}\n(${cmd} did not finish within ${timeoutMs} ms)`,
    };
  };
}

async function pump(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  out: { text: string },
): Promise<void> {
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      out.text += decoder.decode(value, { stream: true });
    }
  } catch {
    // cancelled: no more output
  }
}

/** The promise's value if it settles within `ms`, else undefined. */
async function within<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((r) => {
    timer = setTimeout(() => r(undefined), Math.max(0, ms));
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}
