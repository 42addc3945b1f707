/**
 * The supervisor against real child processes: a tiny throwaway engine (testdata/tiny_engine.ts)
 * for the mechanics, so these tests do not depend on the simulated engine's own behaviour.
 */
import { deepStrictEqual as assertEquals, ok as assert, rejects } from "node:assert/strict";
import { createLogger, silentLogger } from "../core/log.ts";
import type { LaunchSpec, ReplicaHandle } from "./launch_spec.ts";
import { EngineStartError } from "./engine_start_error.ts";
import type { EngineAdapter } from "./engines/engine_adapter.ts";
import { LaunchPlanError } from "../core/engines/launch_plan_error.ts";
import { llamacppAdapter } from "./engines/llamacpp.ts";
import { isGone, readStat } from "./proc_tree.ts";
import { Supervisor } from "./supervisor.ts";
import { tinyAdapter, tinySpec } from "./testdata/tiny_adapter.ts";

const key = "sk-llmgw-test-replica-key";

const spec = (over: Partial<LaunchSpec> = {}) => tinySpec(key, over);

/** A supervisor in a fresh directory, stopped (with every engine) when the test ends. */
async function withSupervisor(
  fn: (sup: Supervisor, dir: string, events: ReplicaHandle[]) => Promise<void>,
  adapters: Record<string, EngineAdapter> = {
    tiny: tinyAdapter(),
    family: tinyAdapter({ withDescendants: true }),
  },
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-sup-" });
  const events: ReplicaHandle[] = [];
  const sup = new Supervisor({
    logger: silentLogger,
    adapters,
    workDir: dir,
    stopGraceMs: 2_000,
    onChange: (h) => events.push(h),
  });
  try {
    await fn(sup, dir, events);
  } finally {
    await sup.stopAll();
    await Deno.remove(dir, { recursive: true });
  }
}

async function get(url: string, auth?: string): Promise<Response> {
  const res = await fetch(url, auth ? { headers: { authorization: `Bearer ${auth}` } } : {});
  await res.body?.cancel();
  return res;
}

async function until(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

Deno.test("an engine started on a free port answers, with its key, once ensure returns", async () => {
  await withSupervisor(async (sup, dir, events) => {
    const h = await sup.ensure(spec());
    assertEquals(h.state, "ready");
    assert(h.port > 0 && h.pid > 0);
    assertEquals(h.baseUrl, `http://127.0.0.1:${h.port}`);
    assertEquals((await get(`${h.baseUrl}/metrics`, key)).status, 200);
    assertEquals((await get(`${h.baseUrl}/metrics`)).status, 401);
    assertEquals(events.map((e) => e.state), ["starting", "ready"]);
    assertEquals(sup.list(), [h]);
    // Its working directory is its own, and the registry names it without the key.
    assert(Deno.statSync(`${dir}/replicas/tiny-1`).isDirectory);
    const registry = Deno.readTextFileSync(`${dir}/replicas.json`);
    assert(registry.includes(`"pid": ${h.pid}`));
    assert(!registry.includes(key));
  });
});

Deno.test("the engine's key never reaches the log, its argv or the registry", async () => {
  // Not in a shape the logger redacts, so only not passing it at all keeps it out.
  const plainKey = "replica-7f3a9c2e41";
  const lines: string[] = [];
  const logger = createLogger({ level: "debug", sink: (l) => lines.push(l) });
  const dir = await Deno.makeTempDir({ prefix: "llmgw-sup-" });
  const sup = new Supervisor({ logger, adapters: { tiny: tinyAdapter() }, workDir: dir });
  try {
    const h = await sup.ensure(spec({ apiKey: plainKey }));
    Deno.kill(h.pid, "SIGKILL");
    await until("a restart", () => sup.get("tiny-1")?.restarts === 1);
    await until("ready again", () => sup.get("tiny-1")?.state === "ready");
    const argv = Deno.readTextFileSync(`/proc/${sup.get("tiny-1")!.pid}/cmdline`);
    assert(!argv.includes(plainKey));
    assert(Deno.readTextFileSync(`/proc/${sup.get("tiny-1")!.pid}/environ`).includes(plainKey));
    await sup.stop("tiny-1");
    assert(lines.some((l) => l.includes("engine ready")), lines.join("\n"));
    assert(!lines.some((l) => l.includes(plainKey)), lines.join("\n"));
    assert(!Deno.readTextFileSync(`${dir}/replicas.json`).includes(plainKey));
  } finally {
    await sup.stopAll();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("ensuring a replica twice, even at the same time, gives one process", async () => {
  await withSupervisor(async (sup) => {
    const [a, b] = await Promise.all([sup.ensure(spec()), sup.ensure(spec())]);
    const c = await sup.ensure(spec());
    assertEquals(a.pid, b.pid);
    assertEquals(a.pid, c.pid);
    assertEquals(sup.list().length, 1);
  });
});

Deno.test("an engine that loads slowly is waited for until its health says ready", async () => {
  await withSupervisor(async (sup) => {
    const started = Date.now();
    const h = await sup.ensure(spec({ args: ["--ready-after-ms", "600"] }));
    assertEquals(h.state, "ready");
    assert(Date.now() - started >= 600);
  });
});

Deno.test("stopping a replica ends its whole process tree, descendants that left the group included", async () => {
  await withSupervisor(async (sup, dir) => {
    const h = await sup.ensure(spec({ engine: "family" }));
    const pidOf = (f: string) =>
      Number(Deno.readTextFileSync(`${dir}/replicas/tiny-1/${f}`).trim());
    const grandchild = pidOf("grandchild.pid");
    const stray = pidOf("stray.pid");
    assert(!isGone(grandchild) && !isGone(stray) && !isGone(h.pid));
    assertEquals(readStat(grandchild)?.pgid, h.pid);
    assert(readStat(stray)?.pgid !== h.pid, "the stray should have left the engine's group");
    await sup.stop("tiny-1");
    // A zombie counts as gone: here PID 1 may not reap orphans, yet they hold nothing.
    assert(isGone(h.pid), "engine still running");
    assert(isGone(grandchild), "grandchild in the engine's group still running");
    assert(isGone(stray), "stray that left the group still running");
    assertEquals(sup.get("tiny-1"), undefined);
    await rejects(get(`${h.baseUrl}/health`));
    // Stopping what is already stopped is not an error.
    await sup.stop("tiny-1");
  });
});

Deno.test("hurry: an engine that ignores SIGTERM is killed at once instead of after its grace", async () => {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-sup-" });
  const sup = new Supervisor({
    logger: silentLogger,
    adapters: { tiny: tinyAdapter() },
    workDir: dir,
    stopGraceMs: 60_000,
    onChange: () => {},
  });
  try {
    const h = await sup.ensure(spec({ args: ["--ignore-sigterm"] }));
    const started = Date.now();
    const stopped = sup.stop("tiny-1");
    await new Promise((r) => setTimeout(r, 300));
    assert(!isGone(h.pid), "SIGTERM alone should not have stopped it");
    sup.hurry();
    await stopped;
    const took = Date.now() - started;
    assert(isGone(h.pid), "engine still running");
    assert(took < 10_000, `stopped ${took} ms after the stop began, not after the 60 s grace`);
  } finally {
    sup.hurry();
    await sup.stopAll();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an engine that exits while starting is reported with its output, key removed", async () => {
  await withSupervisor(async (sup, _dir, events) => {
    await rejects(sup.ensure(spec({ args: ["--fail-at-start"] })), (e: unknown) => {
      assert(e instanceof EngineStartError, String(e));
      assert(e.message.includes("exited with code 3 while starting"), e.message);
      assert(e.output.includes("cannot load model"), e.output);
      assert(!e.output.includes(key) && !e.message.includes(key));
      assert(e.output.includes("[redacted]"));
      return true;
    });
    assertEquals(sup.get("tiny-1")?.state, "failed");
    assertEquals(events.at(-1)?.state, "failed");
    // A failed replica is started afresh by the next ensure.
    assertEquals((await sup.ensure(spec())).state, "ready");
  });
});

Deno.test("an engine that never becomes ready is stopped after the ready timeout", async () => {
  await withSupervisor(async (sup) => {
    let pid = 0;
    const failed = rejects(
      sup.ensure(spec({ args: ["--ready-after-ms", "60000"], readyTimeoutMs: 700 })),
      /did not become ready within 700 ms/,
    );
    await until("a pid", () => (pid = sup.get("tiny-1")?.pid ?? 0) > 0);
    await failed;
    assert(isGone(pid));
  });
});

Deno.test("stopping a replica while it starts ends the start with a clear error and no process", async () => {
  await withSupervisor(async (sup, _dir, events) => {
    // The expectation is attached at once: the start fails while stop() is still being awaited.
    const failed = rejects(
      sup.ensure(spec({ args: ["--ready-after-ms", "60000"] })),
      /was stopped while starting/,
    );
    let pid = 0;
    await until("a pid", () => (pid = sup.get("tiny-1")?.pid ?? 0) > 0);
    await sup.stop("tiny-1");
    await failed;
    assert(isGone(pid));
    assertEquals(sup.get("tiny-1"), undefined);
    assertEquals(events.at(-1)?.state, "stopped");
  });
});

Deno.test("a missing binary or an unknown engine is a clear error and starts nothing", async () => {
  await withSupervisor(async (sup) => {
    await rejects(
      sup.ensure(
        spec({ engine: "llamacpp", modelPath: "/none.gguf", binary: "/nope/llama-server" }),
      ),
      (e: unknown) =>
        e instanceof EngineStartError && /\/nope\/llama-server was not found/.test(e.message),
    );
    await rejects(
      sup.ensure(spec({ engine: "nonesuch" })),
      (e: unknown) =>
        e instanceof LaunchPlanError && e.message.includes("known engines: family, llamacpp, tiny"),
    );
    await rejects(sup.ensure(spec({ replicaId: "../escape" })), LaunchPlanError);
  }, {
    tiny: tinyAdapter(),
    family: tinyAdapter({ withDescendants: true }),
    llamacpp: llamacppAdapter,
  });
});

Deno.test("an engine that crashes after ready is restarted and becomes ready again", async () => {
  await withSupervisor(async (sup, _dir, events) => {
    const first = await sup.ensure(spec());
    Deno.kill(first.pid, "SIGKILL");
    await until("a restarted engine", () => {
      const h = sup.get("tiny-1");
      return h?.state === "ready" && h.pid !== first.pid;
    });
    const now = sup.get("tiny-1")!;
    assertEquals(now.restarts, 1);
    assertEquals(now.port, first.port);
    assert(events.some((e) => e.state === "restarting"));
    assertEquals((await get(`${now.baseUrl}/metrics`, key)).status, 200);
    // ensure() now returns the restarted process.
    assertEquals((await sup.ensure(spec())).pid, now.pid);
  });
});

Deno.test("a replica that keeps failing its restarts ends up failed", async () => {
  await withSupervisor(async (sup, dir) => {
    const first = await sup.ensure(spec({ restart: { maxAttempts: 2, baseDelayMs: 10 } }));
    // Make every restart fail at once: a file where the engine's directory must be.
    await Deno.remove(`${dir}/replicas/tiny-1`, { recursive: true });
    await Deno.writeTextFile(`${dir}/replicas/tiny-1`, "in the way");
    Deno.kill(first.pid, "SIGKILL");
    await until("failed", () => sup.get("tiny-1")?.state === "failed");
    assertEquals(sup.get("tiny-1")?.restarts, 2);
  });
});

Deno.test("load is read from the engine's metrics, and a dead engine's load is unknown", async () => {
  await withSupervisor(async (sup) => {
    await sup.ensure(spec());
    const load = await sup.readLoad("tiny-1");
    assertEquals({ ...load, readAt: 0 }, {
      known: true,
      kvCacheUsage: 0.25,
      running: 2,
      waiting: 1,
      decodeTokensPerSecond: 42.5,
      promptTokensPerSecond: 1000,
      readAt: 0,
    });
    assertEquals((await sup.readLoad("no-such-replica")).known, false);
    await sup.stop("tiny-1");
    assertEquals((await sup.readLoad("tiny-1")).known, false);
  });
});

Deno.test("a metrics endpoint that does not answer is unknown load, read within its time box", async () => {
  // A port that accepts connections and never answers; the replica's metrics reads are sent there.
  const silent = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const c of silent) held.push(c);
  })();
  const silentUrl = `http://127.0.0.1:${(silent.addr as Deno.NetAddr).port}/metrics`;
  const dir = await Deno.makeTempDir({ prefix: "llmgw-sup-" });
  const sup = new Supervisor({
    logger: silentLogger,
    adapters: { tiny: tinyAdapter() },
    workDir: dir,
    fetch: (input, init) => fetch(String(input).endsWith("/metrics") ? silentUrl : input, init),
  });
  try {
    await sup.ensure(spec());
    const started = Date.now();
    assertEquals((await sup.readLoad("tiny-1")).known, false);
    assert(Date.now() - started < 3_000);
  } finally {
    await sup.stopAll();
    silent.close();
    await accepting.catch(() => {});
    for (const c of held) c.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an engine left running by a killed agent is stopped by the next agent's reapOrphans", async () => {
  await withSupervisor(async (sup, dir) => {
    // No restarts: this agent stands for one that is no longer there to restart anything.
    const h = await sup.ensure(spec({ restart: { maxAttempts: 0, baseDelayMs: 10 } }));
    // The next agent reads the same registry; this one "died" without stopping its engine.
    const next = new Supervisor({ logger: silentLogger, adapters: {}, workDir: dir });
    assertEquals(await next.reapOrphans(), 1);
    await until("the orphan to be gone", () => isGone(h.pid));
    // Nothing left to reap, and a pid that no longer matches is never signalled.
    assertEquals(await next.reapOrphans(), 0);
  });
});
