/**
 * The kernel refused to signal an engine (EPERM): it runs as another user and the agent lacks
 * CAP_KILL. Not "already gone": the engine keeps running and holding its card, so this is a
 * failure the supervisor reports rather than a stop it can count as done.
 */
export class StopRefusedError extends Error {
  constructor(readonly pid: number, readonly signal: Deno.Signal) {
    super(
      `could not stop the engine (pid ${pid}): the kernel refused ${signal} (EPERM). The engine ` +
        "runs as another user (engines.run_as) and this agent may not signal it: grant it " +
        "CAP_KILL (AmbientCapabilities=CAP_KILL in llmgw-agent.service), then stop the engine by hand",
    );
    this.name = "StopRefusedError";
  }
}
