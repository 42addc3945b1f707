/**
 * An engine that could not be brought to ready: it was not found, exited while starting, or did not
 * answer its health check in time. Its process group has been stopped; `output` is the tail of
 * what it printed (secrets removed), which is usually the real reason.
 */
export class EngineStartError extends Error {
  override name = "EngineStartError";
  constructor(
    readonly replicaId: string,
    readonly engine: string,
    reason: string,
    readonly output: string,
  ) {
    const last = output.trimEnd().split("\n").pop()?.slice(0, 300);
    super(`replica ${replicaId} (${engine}) ${reason}${last ? `; it last said: ${last}` : ""}`);
  }
}
