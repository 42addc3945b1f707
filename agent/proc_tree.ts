/**
 * Process-tree facts read from /proc, for stopping an engine and everything it started. Off Linux
 * there is no /proc; the answers fall back to what signals can tell.
 */
import { StopRefusedError } from "./stop_refused_error.ts";

export interface ProcStat {
  /** R, S, D, Z, ... */
  readonly state: string;
  readonly ppid: number;
  readonly pgid: number;
  /** Clock ticks after boot; with the pid it names one process even after pids are reused. */
  readonly startTime: number;
}

/** `/proc/<pid>/stat`, read after the last ")" because the command name may contain spaces. */
export function readStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch {
    return undefined;
  }
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const [state, ppid, pgid] = fields;
  const startTime = fields[19];
  if (!state || !ppid || !pgid || !startTime) return undefined;
  return { state, ppid: Number(ppid), pgid: Number(pgid), startTime: Number(startTime) };
}

const hasProc = (() => {
  try {
    return Deno.statSync("/proc/self/stat").isFile;
  } catch {
    return false;
  }
})();

/**
 * A zombie counts as gone: it holds no memory, ports or devices, and where PID 1 does not reap
 * orphans (some containers and microVMs) a killed grandchild stays a zombie indefinitely.
 */
export function isGone(pid: number): boolean {
  if (hasProc) {
    const stat = readStat(pid);
    return !stat || stat.state === "Z";
  }
  // Deno.kill takes no signal 0; SIGCONT is the nearest probe that a running process ignores.
  try {
    Deno.kill(pid, "SIGCONT");
    return false;
  } catch (e) {
    return !(e instanceof Deno.errors.PermissionDenied);
  }
}

function allStats(): Map<number, ProcStat> {
  const out = new Map<number, ProcStat>();
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const stat = readStat(Number(entry.name));
    if (stat) out.set(Number(entry.name), stat);
  }
  return out;
}

/** Whether any process of the group is still running (zombies aside). */
export function groupAlive(pgid: number): boolean {
  if (!hasProc) {
    try {
      Deno.kill(-pgid, "SIGCONT");
      return true;
    } catch (e) {
      return e instanceof Deno.errors.PermissionDenied;
    }
  }
  for (const stat of allStats().values()) {
    if (stat.pgid === pgid && stat.state !== "Z") return true;
  }
  return false;
}

/**
 * Descendants of `leader` that left its process group (a worker that calls setsid). Signalling the
 * group misses them, and one left behind keeps the memory and port the next replica needs. They
 * must be found before the group is signalled, while they are still descendants: afterwards they
 * are re-parented and can no longer be told apart.
 */
export function findStrays(leader: number): number[] {
  if (!hasProc) return [];
  const stats = allStats();
  const out: number[] = [];
  for (const [pid, stat] of stats) {
    if (pid === leader || stat.pgid === leader || stat.state === "Z") continue;
    // Bounded: no engine tree is this deep, and a pid reused mid-scan must not loop.
    let p = stat.ppid;
    for (let step = 0; step < 32 && p > 1; step++) {
      if (p === leader) {
        out.push(pid);
        break;
      }
      p = stats.get(p)?.ppid ?? 0;
    }
  }
  return out;
}

/**
 * Sends `signal` to a pid, or to its whole group when it leads one; a gone target is no error, a
 * refused one (EPERM) throws StopRefusedError.
 */
export function signalTree(pid: number, signal: Deno.Signal): void {
  if (!Number.isInteger(pid) || pid <= 1) throw new RangeError(`not a process: ${pid}`);
  const stat = readStat(pid);
  send(stat && stat.pgid === pid ? -pid : pid, pid, signal);
}

/** Sends `signal` to a process group; a gone group is no error, a refused one throws. */
export function signalGroup(pgid: number, signal: Deno.Signal): void {
  // kill(-0) would signal our own group and kill(-1) every process we may signal.
  if (!Number.isInteger(pgid) || pgid <= 1) throw new RangeError(`not a process group: ${pgid}`);
  send(-pgid, pgid, signal);
}

function send(target: number, pid: number, signal: Deno.Signal): void {
  try {
    Deno.kill(target, signal);
  } catch (e) {
    // EPERM is a process still there that we may not touch; anything else (ESRCH) is gone.
    if (e instanceof Deno.errors.PermissionDenied) throw new StopRefusedError(pid, signal);
  }
}
