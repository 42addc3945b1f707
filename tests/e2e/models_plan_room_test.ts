/**
 * `ctl model plan` and placement agree: the plan judges "free now" on the cluster with the room
 * its live replicas hold, by the reconciler's own placement function, and when no node has room
 * it says which constraint refuses each (here: cores), instead of "free now" followed by a 503.
 */
import { assertEquals, assertMatch } from "../assert.ts";
import { eventually, quickAgentFlags } from "../helpers/llmgw_process.ts";
import { quickClusterFlags, startClusterControlPlane } from "../helpers/control_plane.ts";

Deno.test({
  name: "plan: no room now for cores is said, naming the constraint, as placement sees it",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const root = await Deno.makeTempDir({ prefix: "llmgw-plan-room-" });
  const c = await startClusterControlPlane(root, { flags: { ...quickClusterFlags } });
  try {
    await c.joinAgent("cpu", { args: [...quickAgentFlags] });
    const cores = await eventually("the node's cores", async () => {
      const nodes = (await c.admin("GET", "nodes")).body.data as {
        host?: { cores?: number };
        engines?: unknown[];
      }[];
      return nodes[0]?.engines && nodes[0].host?.cores ? nodes[0].host.cores : undefined;
    }, 30_000);
    // One replica holding every core of the only node.
    await c.addModel(`
name: hog
source: /models/hog.gguf
profiles: [{ engine: sim, memory_gb: 0.1, cores: ${cores} }]
`);
    await c.readyReplica("hog", 30_000);
    await Deno.writeTextFile(`${root}/other.model`, "weights the sim engine does not read");
    const plan = await c.ctl("model", "plan", `${root}/other.model`, "--engine", "sim", "--json");
    assertEquals(plan.code, 0, plan.text);
    const p = JSON.parse(plan.text) as {
      layouts: { freeNow: string[]; busy: { node: string; constraint: string }[] }[];
      warnings: { code: string; message: string }[];
    };
    assertEquals(p.layouts[0]!.freeNow, [], "not free now: hog holds the cores");
    assertEquals(p.layouts[0]!.busy.map((b) => [b.node, b.constraint]), [["cpu", "cores"]]);
    const w = p.warnings.find((x) => x.code === "no_room_now");
    assertMatch(w?.message ?? "", /cpu \(cores\) needs \d+ core\(s\); 0 free/);
  } finally {
    await c.close();
  }
});
