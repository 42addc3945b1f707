/**
 * One run of one engine: the OS process, its captured output, readiness polling and termination.
 * Restarts and bookkeeping belong to the Supervisor; this is a single attempt.
 *
 * Waiting here uses real time, not the injected Clock: it waits on a real process.
 */
import { OutputTail } from "./output_tail.ts";
import { readStat } from "./proc_tree.ts";
import { terminateGroup } from "./terminate_group.ts";

export interface SpawnPlan {
  readonly cmd: string;
  readonly args: readonly string[];
  /** The complete environment: nothing of the agent's own is inherited. */
  readonly env: Record<string, string>;
  readonly cwd: string;
  /** Replaced in the captured output. */
  readonly secrets: readonly string[];
  /** The replica's log across its runs, which this run's output is added to as well. */
  readonly log?: OutputTail;
}

export class EngineProcess {
  readonly tail: OutputTail;
  readonly pid: number;
  /** Start time in /proc ticks, so a later agent can tell this process from a reused pid. */
  readonly procStart: number | undefined;
  readonly exited: Promise<Deno.CommandStatus>;
  #status: Deno.CommandStatus | undefined;
  #child: Deno.ChildProcess;
  #readers: ReadableStreamDefaultReader<Uint8Array>[] = [];
  #pumps: Promise<unknown>;
  readonly #log: OutputTail | undefined;

  /** Throws what Deno.Command throws (e.g. NotFound for a missing binary). */
  static spawn(plan: SpawnPlan): EngineProcess {
    if (!resolvable(plan.cmd, plan.env.PATH)) throw new Deno.errors.NotFound(plan.cmd);
    // The engine outlives an agent restart (the next agent adopts it), but its output pipes do
    // not: a write to a pipe nobody reads raises SIGPIPE, which kills a C++ engine at its next
    // log line. Ignored here, inherited through exec, such a write only fails (EPIPE), and
    // engines carry on without logging. `exec` keeps the pid the supervisor tracks.
    const child = new Deno.Command("sh", {
      args: ["-c", 'trap "" PIPE; exec "$@"', "sh", plan.cmd, ...plan.args],
      env: plan.env,
      clearEnv: true,
      // setsid(): its own session and process group, so the whole tree can be signalled at once
      // and a terminal's Ctrl-C reaches the agent only, which then stops engines in order.
      detached: true,
      cwd: plan.cwd,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    // This run's own tail is what a failed start quotes: shorter than the replica's log.
    return new EngineProcess(child, new OutputTail(plan.secrets, 200, 64 * 1024), plan.log);
  }

  private constructor(child: Deno.ChildProcess, tail: OutputTail, log?: OutputTail) {
    this.#child = child;
    this.tail = tail;
    this.#log = log;
    this.pid = child.pid;
    this.procStart = readStat(child.pid)?.startTime;
    this.exited = child.status.then((s) => (this.#status = s));
    this.#pumps = Promise.all([this.#pump(child.stdout), this.#pump(child.stderr)]);
  }

  get status(): Deno.CommandStatus | undefined {
    return this.#status;
  }

  async #pump(stream: ReadableStream<Uint8Array>): Promise<void> {
    const reader = stream.getReader();
    this.#readers.push(reader);
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const text = decoder.decode(value, { stream: true });
        this.tail.push(text);
        this.#log?.push(text);
      }
    } catch {
      // cancelled or the pipe broke: either way there is no more output
    }
  }

  /**
   * Polls `probe` until it says ready; returns undefined when ready, else why not. Stops early when
   * the process exits. `deadline()` is asked afresh each round: a download or load that reports
   * progress moves it. Each probe is time-boxed by the caller.
   */
  async waitReady(
    probe: (timeoutMs: number) => Promise<boolean>,
    deadline: () => number,
    timeoutMs: number,
    pollMs: number,
  ): Promise<string | undefined> {
    for (;;) {
      if (this.#status) return `${describeExit(this.#status)} while starting`;
      const remaining = deadline() - Date.now();
      if (remaining <= 0) {
        return `did not become ready within ${timeoutMs} ms of its last progress`;
      }
      if (await probe(Math.min(remaining, 2000))) return undefined;
      await this.#sleepUnlessExited(Math.min(pollMs, Math.max(0, deadline() - Date.now())));
    }
  }

  async #sleepUnlessExited(ms: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      new Promise((r) => (timer = setTimeout(r, ms))),
      this.exited,
    ]);
    clearTimeout(timer);
  }

  /**
   * Stops the process group and its strays (SIGTERM, grace, SIGKILL), then collects the exit status
   * and the last output. Safe to call more than once and after the process has exited.
   */
  async terminate(graceMs: number, cutShort?: AbortSignal): Promise<void> {
    // Once reaped, the pid may belong to someone else; its group is ours only while members remain
    // (the kernel does not reuse a number still in use as a group id).
    const now = readStat(this.pid);
    const reused = this.#status !== undefined && now !== undefined &&
      now.startTime !== this.procStart;
    if (!reused) await terminateGroup(this.pid, graceMs, cutShort);
    await this.#settle();
  }

  /**
   * Waits, bounded, for the exit status and the output pipes; a pipe held open by an escaped
   * descendant must not hang the agent, so after a short wait it is cancelled.
   */
  async #settle(): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const bound = (ms: number) => new Promise((r) => (timer = setTimeout(r, ms)));
    await Promise.race([this.exited, bound(2000)]);
    clearTimeout(timer);
    await Promise.race([this.#pumps, bound(1000)]);
    clearTimeout(timer);
    for (const reader of this.#readers) await reader.cancel().catch(() => {});
    await this.#pumps;
    if (!this.#status) {
      // Still not reaped: force it, so the status promise settles and no resource is left.
      try {
        this.#child.kill("SIGKILL");
      } catch {
        // gone
      }
      await this.exited;
    }
  }
}

/** "exited with code 1", "was killed by SIGKILL". */
export function describeExit(status: Deno.CommandStatus): string {
  return status.signal ? `was killed by ${status.signal}` : `exited with code ${status.code}`;
}

/** Whether `cmd` names an executable, as the engine's PATH would find it. */
function resolvable(cmd: string, path: string | undefined): boolean {
  const candidates = cmd.includes("/")
    ? [cmd]
    : (path ?? "/usr/local/bin:/usr/bin:/bin").split(":").filter(Boolean).map((d) => `${d}/${cmd}`);
  return candidates.some((c) => {
    try {
      const s = Deno.statSync(c);
      return s.isFile && (s.mode === null || (s.mode & 0o111) !== 0);
    } catch {
      return false;
    }
  });
}
