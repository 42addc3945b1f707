/**
 * The contract every engine adapter passes (run by ../contract_test.ts for each built-in one):
 *
 *  - its plan puts the key in the environment and never in argv, and binds the host and port given;
 *  - its readiness judge says ready only for a 2xx whose body does not say it is still loading;
 *  - its dialect reads the engine's real /metrics text (a captured fixture) into a known load;
 *  - it finds its executable and version, and says what is missing when there is none;
 *  - live, when the engine can run here (or against a fake speaking its dialect, for one that
 *    cannot): it becomes ready under the supervisor, reports a known load while a request runs,
 *    and stopping it leaves no process behind.
 */
import { assert, assertEquals, assertMatch } from "../../../tests/assert.ts";
import { silentLogger } from "../../../core/log.ts";
import type { EngineAdapter, PlanInput } from "../engine_adapter.ts";
import { loadFromMetrics } from "../metric_dialect.ts";
import { type LoadSnapshot } from "../../../core/protocol/load_snapshot.ts";
import type { LaunchSpec } from "../../launch_spec.ts";
import { groupAlive, isGone } from "../../proc_tree.ts";
import { Supervisor } from "../../supervisor.ts";
import { fakeEngineBinary } from "./dialect_engine.ts";

export interface ContractCase {
  readonly adapter: EngineAdapter;
  /** What the plan is given as the model (a GGUF path, a directory, a hub id). */
  readonly modelPath?: string;
  /** The flag that binds its address, when not `--host` (TEI's `--hostname`). */
  readonly hostFlag?: string;
  /** The engine's /metrics text as captured, and the load it must read as. */
  readonly metrics: { readonly text: string; readonly expect: Omit<LoadSnapshot, "readAt"> };
  /** For engines found on PATH: its executable name and what its version command prints. */
  readonly binary?: {
    readonly name: string;
    readonly versionOutput: string;
    readonly version: string;
  };
  /** How to run it for real; `skip` says why not here. */
  readonly live: { readonly skip: string } | {
    readonly spec: Omit<LaunchSpec, "replicaId" | "engine" | "apiKey">;
    /** A request that keeps the engine busy for a moment: path and JSON body. */
    readonly busy: { readonly path: string; readonly body: unknown };
    /**
     * Run against the dialect fake (dialect_engine.ts) installed under the executable's name,
     * for an engine that cannot run here; its key is read from `keyEnv`, as the adapter sets it.
     */
    readonly fake?: {
      readonly name: string;
      readonly dialect: Parameters<typeof fakeEngineBinary>[2];
      readonly keyEnv: string;
    };
  };
}

const key = "sk-llmgw-contract-secret-key";

export function planContract(c: ContractCase): void {
  const input: PlanInput = {
    model: "contract-model",
    ...(c.modelPath !== undefined ? { modelPath: c.modelPath } : {}),
    args: [],
    allowFlags: [],
    host: "127.0.0.1",
    port: 30123,
    apiKey: key,
    profile: { contextLength: 1024, parallel: 2 },
  };
  const plan = c.adapter.plan(input);
  const argv = [plan.cmd, ...plan.args].join(" ");
  assert(!argv.includes(key), `${c.adapter.name}: the key is in argv: ${argv}`);
  assert(Object.values(plan.env).includes(key), `${c.adapter.name}: the key is not in the env`);
  const at = (flag: string) => plan.args[plan.args.indexOf(flag) + 1];
  assertEquals(at(c.hostFlag ?? "--host"), "127.0.0.1");
  assertEquals(at("--port"), "30123");
  assert(plan.args.includes("contract-model"), "serves the model under its name");
}

export function readinessContract(c: ContractCase): void {
  const a = c.adapter;
  assertEquals(a.isReady(200, '{"status":"ok"}'), true);
  assertEquals(a.isReady(200, ""), true);
  assertEquals(a.isReady(503, '{"error":{"code":503,"message":"Loading model"}}'), false);
  for (const word of ["loading", "starting", "initializing", "warming_up", "error", "unhealthy"]) {
    assertEquals(a.isReady(200, JSON.stringify({ status: word })), false, word);
  }
  assertEquals(a.isReady(401, ""), false);
  assertEquals(a.isReady(500, "Internal Server Error"), false);
}

export function metricsContract(c: ContractCase): void {
  const { readAt: _, ...load } = loadFromMetrics(c.metrics.text, c.adapter.dialect, 1);
  assertEquals(load, c.metrics.expect);
  assertEquals(loadFromMetrics("# nothing\nother_metric 1\n", c.adapter.dialect, 1).known, false);
}

export async function detectContract(c: ContractCase): Promise<void> {
  const found = await c.adapter.detect({ path: "/nonexistent-dir" });
  if (!c.binary) {
    assert(found.installed, `${c.adapter.name} is built in`);
    assert(found.binary.length > 0);
    return;
  }
  assertEquals(found, { installed: false, missing: `${c.binary.name} not on PATH` });
  const configured = await c.adapter.detect({ binary: "/nonexistent/x" });
  assert(!configured.installed);
  assertMatch(configured.missing, /configured/);
  const dir = await Deno.makeTempDir({ prefix: "llmgw-detect-" });
  try {
    const exe = `${dir}/${c.binary.name}`;
    const printed = c.binary.versionOutput.replaceAll("'", "'\\''");
    await Deno.writeTextFile(exe, `#!/bin/sh\nprintf '%s\\n' '${printed}' >&2\n`);
    await Deno.chmod(exe, 0o755);
    assertEquals(await c.adapter.detect({ path: dir }), {
      installed: true,
      binary: exe,
      version: c.binary.version,
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Ready under the supervisor, a known load while busy, and nothing left once stopped. */
export async function liveContract(c: ContractCase): Promise<void> {
  if ("skip" in c.live) return;
  const live = c.live;
  const dir = await Deno.makeTempDir({ prefix: "llmgw-contract-" });
  const sup = new Supervisor({
    logger: silentLogger,
    adapters: { [c.adapter.name]: c.adapter },
    workDir: dir,
    stopGraceMs: 5_000,
  });
  const busy = new AbortController();
  try {
    const binary = live.fake
      ? await fakeEngineBinary(dir, live.fake.name, live.fake.dialect, live.fake.keyEnv)
      : undefined;
    const h = await sup.ensure({
      replicaId: "contract-1",
      engine: c.adapter.name,
      apiKey: key,
      ...live.spec,
      ...(binary ? { binary } : {}),
    });
    assertEquals(h.state, "ready");
    const idle = await sup.readLoad("contract-1");
    assert(idle.known, "an idle engine's load is known");
    assertEquals(idle.running, 0);

    const request = fetch(h.baseUrl + live.busy.path, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(live.busy.body),
      signal: busy.signal,
      // Read, not cancelled: an engine stops generating for a client that hung up.
    }).then((r) => r.body?.pipeTo(new WritableStream())).catch(() => {});
    let seen: LoadSnapshot | undefined;
    for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
      const load = await sup.readLoad("contract-1");
      if (load.known && (load.running ?? 0) >= 1) {
        seen = load;
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    assert(seen, "a request in flight shows in the load");
    busy.abort();
    await request;

    await sup.stop("contract-1");
    assert(isGone(h.pid), "the engine is gone");
    assert(!groupAlive(h.pid), "nothing of its group is left");
  } finally {
    busy.abort();
    await sup.stopAll();
    await Deno.remove(dir, { recursive: true });
  }
}
