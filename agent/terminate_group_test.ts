/**
 * Stopping an engine's process group: one that ignores SIGTERM gets its grace, then SIGKILL; a
 * grace cut short (a second Ctrl-C) kills it at once.
 */
import { assert } from "../tests/assert.ts";
import { groupAlive } from "./proc_tree.ts";
import { terminateGroup } from "./terminate_group.ts";

/** A process group whose leader ignores SIGTERM, as a busy or stuck engine may. */
async function stubbornGroup(): Promise<Deno.ChildProcess> {
  const child = new Deno.Command("sh", {
    args: ["-c", 'trap "" TERM; echo ready; while :; do sleep 1; done'],
    stdout: "piped",
    stderr: "null",
    detached: true,
  }).spawn();
  const reader = child.stdout.getReader();
  await reader.read();
  reader.releaseLock();
  await child.stdout.cancel();
  return child;
}

Deno.test("terminateGroup: a group that ignores SIGTERM is killed once its grace is over", async () => {
  const child = await stubbornGroup();
  const started = Date.now();
  const killed = await terminateGroup(child.pid, 600);
  const took = Date.now() - started;
  assert(killed, "SIGKILL was needed");
  assert(took >= 550, `waited out the grace (${took} ms)`);
  assert(!groupAlive(child.pid));
  assert((await child.status).signal === "SIGKILL");
});

Deno.test("terminateGroup: a grace cut short kills at once", async () => {
  const child = await stubbornGroup();
  const cut = new AbortController();
  const started = Date.now();
  const stopping = terminateGroup(child.pid, 60_000, cut.signal);
  setTimeout(() => cut.abort(), 200);
  assert(await stopping, "SIGKILL was needed");
  const took = Date.now() - started;
  assert(took < 5_000, `killed ${took} ms after the stop began, not after the 60 s grace`);
  assert(!groupAlive(child.pid));
  assert((await child.status).signal === "SIGKILL");
});
