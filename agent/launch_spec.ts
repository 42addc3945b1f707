/** What the supervisor is asked to run, and what it reports back about it. */
import type { EngineProfile } from "./engines/engine_adapter.ts";

export interface RestartPolicy {
  /** Restarts in a row before the replica is "failed"; the count resets after a stable run. */
  readonly maxAttempts: number;
  /** First delay; each further attempt doubles it (with jitter), up to a minute. */
  readonly baseDelayMs: number;
}

/** What an absent field of a LaunchSpec means. */
export const launchDefaults = {
  /** Generous: a CPU engine loading a large GGUF takes minutes; GPU engines ask for more. */
  readyTimeoutMs: 120_000,
  pollIntervalMs: 250,
  restart: { maxAttempts: 5, baseDelayMs: 1_000 } as RestartPolicy,
};

export interface LaunchSpec {
  /** Identity for idempotence: one process per replica id, ever. Letters, digits, `.`, `_`, `-`. */
  readonly replicaId: string;
  /** The name clients ask for. */
  readonly model: string;
  /** An adapter name given to the Supervisor: "llamacpp", "sim", "vllm". */
  readonly engine: string;
  readonly modelPath?: string;
  readonly binary?: string;
  /** The engine's version as the agent detected it: flags only later builds have follow it. */
  readonly version?: string;
  /** Context, slots, GPU layers, tensor parallel, memory fraction, mode: each engine's flags. */
  readonly profile?: EngineProfile;
  /** Extra engine arguments from the catalog; checked by the engine's flag gate. */
  readonly args?: readonly string[];
  /** Refused flags the catalog explicitly allows (only those the gate marks allowable). */
  readonly allowFlags?: readonly string[];
  /** Address the engine binds; loopback unless the router reaches it from another machine. */
  readonly host?: string;
  /** 0 or absent: a free port is picked. */
  readonly port?: number;
  /** Per-replica key. Goes to the engine's environment only; never logged, never in argv. */
  readonly apiKey: string;
  /** Cards the engine may see (CUDA_VISIBLE_DEVICES); [] hides all, absent leaves it unset. */
  readonly gpus?: readonly number[];
  readonly readyTimeoutMs?: number;
  readonly pollIntervalMs?: number;
  readonly restart?: RestartPolicy;
}

/** `unhealthy`: ready once, now failing its health checks in a row (a hung engine). */
export type ReplicaState = "starting" | "ready" | "unhealthy" | "restarting" | "failed" | "stopped";

export interface ReplicaHandle {
  readonly replicaId: string;
  readonly model: string;
  readonly engine: string;
  readonly baseUrl: string;
  /** The current (or last) process; 0 before the first one started. */
  readonly pid: number;
  readonly port: number;
  readonly state: ReplicaState;
  /** Epoch ms when the current process was started. */
  readonly startedAt: number;
  /** Restart attempts made since the replica was ensured. */
  readonly restarts: number;
  /** Requests the engine was launched to run at once; absent: the engine's own default. */
  readonly slots?: number;
  /** Why a failed replica failed, when the supervisor knows (a stop the kernel refused). */
  readonly error?: string;
}
