/**
 * A hung engine is found: the supervisor probes ready engines' health routes on an interval. An
 * engine SIGSTOPped (as a deadlocked one looks from outside) turns unhealthy after the set number
 * of failed probes, ready again when it answers, and is restarted (a new process) when it does
 * not recover.
 */
import { assert, assertEquals } from "../tests/assert.ts";
import { silentLogger } from "../core/log.ts";
import type { ReplicaHandle } from "./launch_spec.ts";
import { isGone } from "./proc_tree.ts";
import { Supervisor } from "./supervisor.ts";
import { tinyAdapter, tinySpec } from "./testdata/tiny_adapter.ts";

async function until(what: string, check: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function withSupervisor(
  fn: (sup: Supervisor, events: ReplicaHandle[]) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-health-" });
  const events: ReplicaHandle[] = [];
  const sup = new Supervisor({
    logger: silentLogger,
    adapters: { tiny: tinyAdapter() },
    workDir: dir,
    stopGraceMs: 500,
    healthIntervalMs: 200,
    healthFailures: 2,
    onChange: (h) => events.push(h),
  });
  try {
    await fn(sup, events);
  } finally {
    await sup.stopAll();
    await Deno.remove(dir, { recursive: true });
  }
}

const states = (events: ReplicaHandle[]) => events.map((e) => e.state);

Deno.test("health: a SIGSTOPped engine turns unhealthy, and ready again once it answers", async () => {
  await withSupervisor(async (sup, events) => {
    const h = await sup.ensure(tinySpec("k1"));
    Deno.kill(h.pid, "SIGSTOP");
    try {
      await until("unhealthy", () => sup.get(h.replicaId)?.state === "unhealthy");
    } finally {
      Deno.kill(h.pid, "SIGCONT");
    }
    await until("ready again", () => sup.get(h.replicaId)?.state === "ready");
    assertEquals(sup.get(h.replicaId)?.pid, h.pid, "the same process: it recovered by itself");
    assertEquals(states(events).slice(-2), ["unhealthy", "ready"]);
  });
});

Deno.test("health: an engine that stays hung is stopped and restarted with the backoff", async () => {
  await withSupervisor(async (sup, events) => {
    const h = await sup.ensure(tinySpec("k2"));
    Deno.kill(h.pid, "SIGSTOP");
    await until(
      "restarted and ready",
      () => sup.get(h.replicaId)?.state === "ready" && sup.get(h.replicaId)?.pid !== h.pid,
      20_000,
    );
    const after = sup.get(h.replicaId)!;
    assertEquals(after.restarts, 1);
    assert(isGone(h.pid), "the hung process was killed");
    const seen = states(events);
    const hung = seen.indexOf("unhealthy");
    assert(hung >= 0, seen.join(" "));
    assertEquals([...new Set(seen.slice(hung))], ["unhealthy", "restarting", "ready"]);
    assertEquals(events.filter((e) => e.state === "ready" && e.pid !== h.pid).length, 1);
  });
});
