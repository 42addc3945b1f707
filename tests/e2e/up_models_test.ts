/**
 * `llmgw up` serves what it was told: a later `up` with another model retires the model an
 * earlier `up` served (its replica stops, its engine process goes), while a model the operator
 * added through the API stays. The control plane and `up`'s own node run in-process as `up` runs
 * them (a real joined Agent over the loopback TLS listener, sim engines as child processes).
 */
import { assert, assertEquals } from "../assert.ts";
import { alive, eventually } from "../helpers/llmgw_process.ts";
import { startClusterControlPlane } from "../helpers/control_plane.ts";
import { type LocalNode, startLocalNode } from "../../appliance/local_node.ts";
import { parseModel } from "../../server/models/model_yaml.ts";

Deno.test({
  name:
    "llmgw up: a later up with another model retires the earlier up's model, not the operator's",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const root = await Deno.makeTempDir({ prefix: "llmgw-up-models-" });
  const c = await startClusterControlPlane(root, {
    flags: { "reconciler-interval-ms": "300", "nodes-heartbeat-ms": "300" },
  });
  const { cp, config, logs, logger } = c;
  const services = cp.deps.modelServices!;
  const nodes: LocalNode[] = [];
  const served = (name: string) =>
    ({ name, engine: "sim", source: "", description: null }) as const;
  const pidOf = (model: string) =>
    eventually(`${model}'s engine pid`, async () => {
      const id = services.replicas(model).find((r) => r.state === "ready")?.id;
      if (!id) return undefined;
      const node = await cp.deps.nodes!.hub.get("local");
      return node.replicas.find((s) => s.replicaId === id)?.pid || undefined;
    }, 30_000);
  try {
    const first = await startLocalNode(cp, config, served("first"), logger);
    nodes.push(first);
    await first.ready;
    await services.add([parseModel({
      name: "mine",
      source: "/models/mine.gguf",
      profiles: [{ engine: "sim", memory_gb: 0.1, cores: 1 }],
    })]);
    await eventually("mine ready", () =>
      Promise.resolve(
        services.replicas("mine").some((r) => r.state === "ready") ? true : undefined,
      ), 30_000);
    const firstPid = await pidOf("first");
    await first.stop();
    nodes.pop();

    const second = await startLocalNode(cp, config, served("second"), logger);
    nodes.push(second);
    await second.ready;
    assertEquals(cp.deps.catalog.get("first"), undefined, "the earlier up's model is retired");
    assertEquals(cp.deps.catalog.get("second")?.declaredIn, "up");
    assert(cp.deps.catalog.get("mine"), "the operator's model stays");
    await eventually(
      "first's replica gone",
      () => Promise.resolve(services.replicas("first").length === 0 ? true : undefined),
      30_000,
    );
    await eventually(
      "first's engine gone",
      () => Promise.resolve(alive(firstPid) ? undefined : true),
      30_000,
    );
    await eventually("mine still served", () =>
      Promise.resolve(
        services.replicas("mine").some((r) => r.state === "ready") ? true : undefined,
      ), 30_000);
    assert(logs.some((l) => /no longer served/.test(l) && /first/.test(l)), "the log says so");
  } finally {
    for (const n of nodes) await n.stop().catch(() => {});
    await c.close();
  }
});
