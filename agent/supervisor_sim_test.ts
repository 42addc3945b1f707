/** The supervisor running the real simulated engine (`llmgw sim-engine`) through its adapter. */
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { silentLogger } from "../core/log.ts";
import { builtinAdapters } from "./engines/builtin_adapters.ts";
import { isGone } from "./proc_tree.ts";
import { Supervisor } from "./supervisor.ts";

Deno.test("the simulated engine runs under the supervisor, answers with its key and reports its load", async () => {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-sim-" });
  const sup = new Supervisor({ logger: silentLogger, adapters: builtinAdapters, workDir: dir });
  const key = "sk-llmgw-sim-replica-key";
  try {
    const h = await sup.ensure({
      replicaId: "sim-a",
      model: "sim-demo",
      engine: "sim",
      apiKey: key,
      readyTimeoutMs: 20_000,
      pollIntervalMs: 50,
    });
    assertEquals(h.state, "ready");
    const res = await fetch(`${h.baseUrl}/v1/models`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const models = await res.json() as { data: Array<{ id: string }> };
    assert(models.data.some((m) => m.id === "sim-demo"), JSON.stringify(models));
    const refused = await fetch(`${h.baseUrl}/v1/models`);
    await refused.body?.cancel();
    assertEquals(refused.status, 401);

    const load = await sup.readLoad("sim-a");
    assertEquals(load.known, true);
    assertEquals(load.running, 0);
    assertEquals(load.waiting, 0);
    assert(typeof load.kvCacheUsage === "number" && load.kvCacheUsage >= 0);

    await sup.stop("sim-a");
    assert(isGone(h.pid));
    assertEquals((await sup.readLoad("sim-a")).known, false);
  } finally {
    await sup.stopAll();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a SIGSTOPped simulated engine is found hung, taken out of routing and restarted", async () => {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-sim-hung-" });
  const states: string[] = [];
  const sup = new Supervisor({
    logger: silentLogger,
    adapters: builtinAdapters,
    workDir: dir,
    stopGraceMs: 500,
    healthIntervalMs: 250,
    healthFailures: 2,
    onChange: (h) => states.push(h.state),
  });
  try {
    const h = await sup.ensure({
      replicaId: "sim-hung",
      model: "sim-demo",
      engine: "sim",
      apiKey: "sk-llmgw-sim-hung",
      readyTimeoutMs: 20_000,
      pollIntervalMs: 50,
    });
    Deno.kill(h.pid, "SIGSTOP");
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const now = sup.get("sim-hung");
      if (now?.state === "ready" && now.pid !== h.pid) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const after = sup.get("sim-hung")!;
    assertEquals(after.state, "ready", states.join(" "));
    assert(after.pid !== h.pid, "a new engine");
    assert(isGone(h.pid), "the hung one was killed");
    const hung = states.indexOf("unhealthy");
    assert(hung > 0 && states.indexOf("ready") < hung, states.join(" "));
  } finally {
    await sup.stopAll();
    await Deno.remove(dir, { recursive: true });
  }
});
