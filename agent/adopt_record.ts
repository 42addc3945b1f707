/**
 * Whether an engine an earlier agent recorded may be taken over for a replica now asked for, and
 * stopping one that may not. An engine is adopted only when every check holds: its pid is the
 * process recorded (same start time, leading its own group), it runs the engine and model asked
 * for at the address asked for, it was started with the key asked for, and it answers its health
 * check. A wedged engine keeps device memory, so one that is alive but fails is stopped.
 */
import type { LaunchSpec } from "./launch_spec.ts";
import { readStat } from "./proc_tree.ts";
import type { ReplicaRecord } from "./replica_registry.ts";
import { terminateGroup } from "./terminate_group.ts";

/** A process the agent may signal: the pid and the start time that proves it is still that one. */
export interface RecordedProcess {
  readonly pid: number;
  readonly procStart?: number;
}

export type Verdict =
  | { readonly adopt: true }
  | { readonly adopt: false; readonly reason: string; readonly kill?: RecordedProcess };

export interface JudgeInput {
  readonly spec: LaunchSpec;
  /** Where the replica would listen; the record must match. */
  readonly baseUrl: string;
  /** The key kept for the recorded engine, if any. */
  readonly storedKey: string | undefined;
  readonly probe: (timeoutMs: number) => Promise<boolean>;
  /** Time for each of two health probes; one slow answer is not death. Default 3 s. */
  readonly probeTimeoutMs?: number;
}

export async function judgeRecord(record: ReplicaRecord, input: JudgeInput): Promise<Verdict> {
  const stat = readStat(record.pid);
  if (!stat || stat.state === "Z") return { adopt: false, reason: "its process is gone" };
  if (stat.pgid !== record.pid || record.procStart === undefined) {
    return { adopt: false, reason: "its pid cannot be told from a reused one" };
  }
  if (stat.startTime !== record.procStart) {
    return { adopt: false, reason: "its pid now belongs to another process" };
  }
  const kill: RecordedProcess = { pid: record.pid, procStart: record.procStart };
  const { spec } = input;
  if (record.engine !== spec.engine || record.model !== spec.model) {
    return { adopt: false, reason: `it runs ${record.engine}/${record.model}`, kill };
  }
  if (record.baseUrl !== input.baseUrl) {
    return { adopt: false, reason: `it listens on ${record.baseUrl}`, kill };
  }
  if (input.storedKey !== spec.apiKey) {
    return {
      adopt: false,
      reason: input.storedKey === undefined ? "its key is not known" : "it holds another key",
      kill,
    };
  }
  const ms = input.probeTimeoutMs ?? 3_000;
  for (let attempt = 0; attempt < 2; attempt++) {
    if (await input.probe(ms)) return { adopt: true };
  }
  return { adopt: false, reason: "it does not answer its health check", kill };
}

/**
 * Stops a recorded engine's group, unless its pid was reused meanwhile: a pid whose start time
 * differs is another process, and a gone pid's group can still hold strays worth stopping (the
 * kernel does not reuse a pid while it names a live group).
 */
export async function stopRecorded(
  p: RecordedProcess,
  graceMs: number,
  cutShort?: AbortSignal,
): Promise<void> {
  const stat = readStat(p.pid);
  if (stat && p.procStart !== undefined && stat.startTime !== p.procStart) return;
  if (p.pid <= 1) return;
  await terminateGroup(p.pid, graceMs, cutShort);
}
