/**
 * The "ensure" design across agent restarts: an engine a previous agent left running is adopted
 * when it is sound, replaced when it is not; plus port ranges and the progress-based ready timeout.
 * "A previous agent" is a Supervisor on the same work directory that is simply abandoned (with no
 * restarts, so it does not fight the next one over its engine).
 */
import { assert, assertEquals, assertNotEquals, assertRejects } from "../tests/assert.ts";
import { silentLogger } from "../core/log.ts";
import type { LaunchSpec } from "./launch_spec.ts";
import { EngineStartError } from "./engine_start_error.ts";
import { isGone } from "./proc_tree.ts";
import { Supervisor, type SupervisorDeps } from "./supervisor.ts";
import { tinyAdapter, tinySpec } from "./testdata/tiny_adapter.ts";

const key = "sk-llmgw-adopt-test-key";
const spec = (over: Partial<LaunchSpec> = {}) => tinySpec(key, over);
const dying = { restart: { maxAttempts: 0, baseDelayMs: 10 } };

async function until(what: string, cond: () => boolean | Promise<boolean>, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Two agents' supervisors on one directory; both stopped and the directory removed at the end. */
async function twoAgents(
  fn: (make: (over?: Partial<SupervisorDeps>) => Supervisor, dir: string) => Promise<void>,
) {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-adopt-" });
  const made: Supervisor[] = [];
  const make = (over: Partial<SupervisorDeps> = {}) => {
    const s = new Supervisor({
      logger: silentLogger,
      adapters: { tiny: tinyAdapter() },
      workDir: dir,
      stopGraceMs: 1_000,
      ...over,
    });
    made.push(s);
    return s;
  };
  try {
    await fn(make, dir);
  } finally {
    for (const s of made.reverse()) await s.stopAll();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a restarted agent adopts a healthy engine: same pid, ready, not restarted, key kept", async () => {
  await twoAgents(async (make, dir) => {
    const first = await make().ensure(spec(dying));
    const keyFile = `${dir}/keys/tiny-1.key`;
    assertEquals(Deno.statSync(keyFile).mode! & 0o777, 0o600);
    assertEquals(Deno.statSync(`${dir}/keys`).mode! & 0o777, 0o700);
    assert(!Deno.readTextFileSync(`${dir}/replicas.json`).includes(key), "no key in the registry");

    const next = make();
    assertEquals(next.recorded().map((r) => r.replicaId), ["tiny-1"]);
    assertEquals(next.apiKey("tiny-1"), key, "the owner can read the key of what it may adopt");
    const adopted = await next.ensure(spec());
    assertEquals(adopted.pid, first.pid);
    assertEquals(adopted.state, "ready");
    assertEquals(adopted.restarts, 0);
    assertEquals(adopted.baseUrl, first.baseUrl);
    assertEquals((await next.readLoad("tiny-1")).known, true);
    assertEquals((await next.ensure(spec())).pid, first.pid, "idempotent after adoption");

    await next.stop("tiny-1");
    await until("the adopted engine to stop", () => isGone(first.pid));
    assertEquals(next.apiKey("tiny-1"), undefined, "the key file goes with the engine");
  });
});

Deno.test("an engine asked for with another key is replaced, not adopted", async () => {
  await twoAgents(async (make) => {
    const first = await make().ensure(spec(dying));
    const replaced = await make().ensure(spec({ apiKey: "sk-llmgw-another-key" }));
    assertNotEquals(replaced.pid, first.pid);
    await until("the old engine to be stopped", () => isGone(first.pid));
  });
});

Deno.test("a recorded engine that stopped answering is killed and a new one started", async () => {
  await twoAgents(async (make) => {
    const first = await make().ensure(spec(dying));
    Deno.kill(first.pid, "SIGSTOP"); // alive, holding its port and memory, answering nothing
    const next = make({ adoptProbeTimeoutMs: 200 });
    const fresh = await next.ensure(spec());
    assertNotEquals(fresh.pid, first.pid);
    assertEquals(fresh.state, "ready");
    await until("the wedged engine to be killed", () => isGone(first.pid));
  });
});

Deno.test("an adopted engine that dies is restarted", async () => {
  await twoAgents(async (make) => {
    const first = await make().ensure(spec(dying));
    const next = make({ adoptedWatchMs: 50 });
    await next.ensure(spec());
    Deno.kill(first.pid, "SIGKILL");
    await until("a new engine to be ready", () => {
      const h = next.get("tiny-1");
      return h?.state === "ready" && h.pid !== first.pid;
    });
    assertEquals(next.get("tiny-1")?.restarts, 1);
  });
});

Deno.test("engine ports come from the configured range, skipping ports in use", async () => {
  // A range likely to be free here; the first port is held by someone else.
  const base = 31_000 + Math.floor(Math.random() * 2_000) * 4;
  const squatter = Deno.listen({ hostname: "127.0.0.1", port: base });
  try {
    await twoAgents(async (make) => {
      const sup = make({ portRange: { first: base, last: base + 3 } });
      const a = await sup.ensure(spec({ replicaId: "a" }));
      const b = await sup.ensure(spec({ replicaId: "b" }));
      // Which free ports, in which order, depends on where the picker starts; all from the range.
      const ports = [a.port, b.port].sort();
      assertEquals(ports.every((p) => p > base && p <= base + 3), true, String(ports));
      assertEquals(new Set(ports).size, 2);
      await sup.ensure(spec({ replicaId: "c" }));
      await assertRejects(
        () => sup.ensure(spec({ replicaId: "d" })),
        EngineStartError,
        "no free port",
      );
    });
  } finally {
    squatter.close();
  }
});

Deno.test("the ready timeout counts from the last progress, not from the start", async () => {
  await twoAgents(async (make) => {
    const sup = make();
    const slow = spec({ readyTimeoutMs: 500, args: ["--ready-after-ms", "1500"] });
    const ticking = setInterval(() => sup.touch("tiny-1"), 150);
    try {
      assertEquals((await sup.ensure(slow)).state, "ready");
    } finally {
      clearInterval(ticking);
    }
    await sup.stop("tiny-1");
    await assertRejects(() => sup.ensure(slow), EngineStartError, "of its last progress");
  });
});
