/**
 * Engines as a user of their own (`engines.run_as`): the agent starts each engine through
 * util-linux's `setpriv`, which drops to that user and group, takes its supplementary groups
 * (`video`/`render` for the cards), and clears every capability before exec. setpriv execs the
 * engine in place, so the pid and process group the supervisor tracks are the engine's own.
 *
 * The agent then needs CAP_SETUID and CAP_SETGID (deploy/llmgw-agent.service grants them as
 * ambient capabilities) and the engine user needs to read the weights and write its replica
 * directory (the unit's group and UMask see to that).
 */
const nameRe = /^[a-z_][a-z0-9_-]{0,31}\$?$/;

/** `runAs` is `USER` (group of the same name) or `USER:GROUP`. */
export function runAsPlan(
  runAs: string,
  cmd: string,
  args: readonly string[],
  setpriv = "setpriv",
): { cmd: string; args: string[] } {
  const [user = "", group = user, ...rest] = runAs.split(":");
  if (!nameRe.test(user) || !nameRe.test(group) || rest.length) {
    throw new TypeError(`engines.run_as: "${runAs}" is not USER or USER:GROUP`);
  }
  return {
    cmd: setpriv,
    args: [
      `--reuid=${user}`,
      `--regid=${group}`,
      "--init-groups",
      "--inh-caps=-all",
      "--bounding-set=-all",
      "--",
      cmd,
      ...args,
    ],
  };
}
