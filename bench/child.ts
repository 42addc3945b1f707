/**
 * Another llmgw started as a child process (a sim engine, a gateway), the way a person would run
 * it, with its output read until it says where it listens. Output is kept only as a short tail,
 * with keys and passwords removed, for the error message when it fails to start.
 */
import { selfCommand, selfCommandEnv } from "../core/self_command.ts";

export interface Child {
  readonly pid: number;
  /** The regex's matches from the output, once it appeared. */
  readonly match: RegExpExecArray;
  /** Everything printed up to the match (secrets included: keep it out of reports and logs). */
  readonly startupText: string;
  /** The last lines of output, secrets removed. */
  tail(): string;
  /** SIGINT, then SIGKILL if it has not ended after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

const secret = /(sk-llmgw-\S+|llmgw_[a-z]+_\S+|Password:\s+\S+|Bearer\s+\S+)/g;
const tailChars = 4000;

export interface StartOptions {
  readyWhen: RegExp;
  timeoutMs: number;
  env?: Record<string, string>;
}

/** Starts `llmgw <args...>`. */
export function startChild(args: string[], opts: StartOptions): Promise<Child> {
  return startProcess(selfCommand(args), `llmgw ${args[0]}`, opts);
}

/** Starts any program (the same deno, for a script under bench/) and waits for its ready line. */
export async function startProcess(
  command: { cmd: string; args: string[] },
  label: string,
  opts: StartOptions,
): Promise<Child> {
  const { cmd, args: full } = command;
  const child = new Deno.Command(cmd, {
    args: full,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { ...selfCommandEnv(), ...(opts.env ?? {}) },
  }).spawn();
  let startup = "";
  let starting = true;
  let tail = "";
  let onText = () => {};
  const pump = async (s: ReadableStream<Uint8Array>) => {
    for await (const text of s.pipeThrough(new TextDecoderStream())) {
      if (starting) startup += text;
      tail = (tail + text).slice(-tailChars);
      onText();
    }
  };
  // Read to the end always: a full pipe would stop the child mid-run.
  const pumps = Promise.all([pump(child.stdout), pump(child.stderr)]).catch(() => {});
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    onText();
    return s;
  });
  const redactedTail = () => tail.replace(secret, "[redacted]");

  const match = await new Promise<RegExpExecArray | null>((resolve) => {
    const timer = setTimeout(() => resolve(null), opts.timeoutMs);
    onText = () => {
      const m = opts.readyWhen.exec(startup);
      if (m || exited) {
        clearTimeout(timer);
        onText = () => {};
        resolve(m);
      }
    };
  });
  starting = false;
  let stopped: Promise<void> | undefined;
  const stop = (graceMs = 10_000) => {
    stopped ??= (async () => {
      if (!exited) {
        try {
          child.kill("SIGINT");
        } catch {
          // It ended between the check and the signal.
        }
        const timer = setTimeout(() => {
          try {
            child.kill("SIGKILL");
          } catch {
            // Already gone.
          }
        }, graceMs);
        await status;
        clearTimeout(timer);
      }
      await pumps;
    })();
    return stopped;
  };
  if (!match) {
    await stop(2_000);
    throw new Error(
      `${label} did not start within ${opts.timeoutMs} ms${exited ? " (it exited)" : ""}; ` +
        `its last output:\n${redactedTail()}`,
    );
  }
  return { pid: child.pid, match, startupText: startup, tail: redactedTail, stop };
}
