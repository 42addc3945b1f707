/**
 * Stopping an engine means stopping everything it started: SIGTERM to its process group and to any
 * descendants that left the group, a grace period to exit cleanly (an engine frees device memory and
 * flushes on SIGTERM), then SIGKILL for whatever is left. A group that is already gone counts as
 * stopped. `cutShort` ends the grace early (someone asked twice to stop now). A group the kernel
 * will not let us signal (EPERM: another user's, and no CAP_KILL) throws StopRefusedError at once:
 * waiting out a grace for a signal that was never delivered helps nobody.
 */
import { findStrays, groupAlive, isGone, signalGroup, signalTree } from "./proc_tree.ts";

/** Polls `done` until it holds, `ms` pass or `cutShort` is aborted; true when it held. */
async function waitUntil(
  done: () => boolean,
  ms: number,
  cutShort?: AbortSignal,
): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() >= deadline || cutShort?.aborted) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

/** Resolves once the group led by `pgid` and its strays are gone; true if SIGKILL was needed. */
export async function terminateGroup(
  pgid: number,
  graceMs: number,
  cutShort?: AbortSignal,
): Promise<boolean> {
  const strays = findStrays(pgid);
  signalGroup(pgid, "SIGTERM");
  for (const pid of strays) signalTree(pid, "SIGTERM");
  const allGone = () => !groupAlive(pgid) && strays.every(isGone);
  if (await waitUntil(allGone, graceMs, cutShort)) return false;
  signalGroup(pgid, "SIGKILL");
  for (const pid of strays) signalTree(pid, "SIGKILL");
  // SIGKILL cannot be refused; this wait is only for the kernel to tear the processes down.
  await waitUntil(allGone, 2000);
  return true;
}
