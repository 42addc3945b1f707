/**
 * What an agent that runs engines as another user (`engines.run_as`) needs of its own
 * capabilities: CAP_SETUID and CAP_SETGID to start them through setpriv, CAP_KILL to stop them
 * (the kernel refuses signals to another user's processes otherwise). Read from the effective set
 * in /proc/self/status, so `doctor` and the agent's heartbeat say what is missing before an engine
 * is started that could never be stopped.
 */
const needed = [
  { bit: 7n, name: "CAP_SETUID", why: "to start engines as that user" },
  { bit: 6n, name: "CAP_SETGID", why: "to give engines that user's groups" },
  { bit: 5n, name: "CAP_KILL", why: "to stop engines running as another user" },
] as const;

/** Sentences for each capability `engines.run_as` needs and the agent lacks; [] when none. */
export function runAsProblems(runAs: string, procStatus: string): string[] {
  if (!runAs) return [];
  const hex = /^CapEff:\s*([0-9a-f]+)\s*$/m.exec(procStatus)?.[1];
  // No /proc (not Linux): nothing to say.
  if (hex === undefined) return [];
  const effective = BigInt(`0x${hex}`);
  return needed
    .filter((c) => (effective & (1n << c.bit)) === 0n)
    .map((c) =>
      `engines.run_as is ${runAs} but this agent lacks ${c.name}, needed ${c.why} ` +
      `(grant it: AmbientCapabilities=${c.name} in llmgw-agent.service)`
    );
}

/** The same for this process. */
export function ownRunAsProblems(runAs: string): string[] {
  try {
    return runAsProblems(runAs, Deno.readTextFileSync("/proc/self/status"));
  } catch {
    return [];
  }
}
