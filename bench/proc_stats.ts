/**
 * A process's own accounting, read from Linux's /proc: CPU time (user + system) and resident
 * memory. This is what the kernel charged the process, so it includes the runtime's own threads
 * (I/O, GC) and excludes children such as the engine the gateway starts.
 */

export interface CpuTime {
  /** User plus system time, in ms. */
  ms: number;
}

export interface Memory {
  /** Resident set now, in bytes. */
  rss: number;
  /** Largest resident set since the process started, in bytes. */
  hwm: number;
}

/** utime + stime from /proc/<pid>/stat, converted from clock ticks to ms. */
export async function readCpu(pid: number, clkTck: number): Promise<CpuTime> {
  return { ms: parseStatCpuTicks(await Deno.readTextFile(`/proc/${pid}/stat`)) * 1000 / clkTck };
}

/** utime + stime (fields 14 and 15), counted after the command name, which may hold spaces. */
export function parseStatCpuTicks(stat: string): number {
  const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // rest[0] is field 3 (state), so field n is rest[n - 3].
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) {
    throw new Error("unexpected /proc/<pid>/stat format");
  }
  return utime + stime;
}

export async function readMemory(pid: number): Promise<Memory> {
  return parseStatusMemory(await Deno.readTextFile(`/proc/${pid}/status`));
}

export function parseStatusMemory(status: string): Memory {
  const kb = (name: string) => {
    const m = new RegExp(`^${name}:\\s+(\\d+)\\s+kB`, "m").exec(status);
    if (!m) throw new Error(`no ${name} in /proc/<pid>/status`);
    return Number(m[1]) * 1024;
  };
  return { rss: kb("VmRSS"), hwm: kb("VmHWM") };
}

/** The kernel's clock ticks per second (USER_HZ); 100 on every common Linux. */
export async function clockTicks(): Promise<number> {
  try {
    const out = await new Deno.Command("getconf", { args: ["CLK_TCK"], stdout: "piped" }).output();
    const n = Number(new TextDecoder().decode(out.stdout).trim());
    if (out.success && Number.isInteger(n) && n > 0) return n;
  } catch {
    // No getconf: fall through to the value every mainstream Linux uses.
  }
  return 100;
}

/** Samples a process's resident memory every `everyMs` and keeps the largest. */
export class RssSampler {
  peak = 0;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(readonly pid: number, everyMs = 100) {
    this.#timer = setInterval(() => void this.sample(), everyMs);
  }

  async sample(): Promise<void> {
    try {
      const { rss } = await readMemory(this.pid);
      if (rss > this.peak) this.peak = rss;
    } catch {
      // The process ended; the peak so far stands.
    }
  }

  async stop(): Promise<number> {
    clearInterval(this.#timer);
    await this.sample();
    return this.peak;
  }
}
