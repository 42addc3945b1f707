/**
 * README promises about models and nodes, end to end: an in-process control plane (the real
 * reconciler on short settings) and one CPU-only agent as a real process running sim engines.
 * Checks: a model's aliases work wherever its name does in a request; an on-demand model that no
 * node can hold keeps its first request for `on_demand.request_wait_ms`, then answers 503 with
 * Retry-After and the phase it is in; cordon keeps what runs on the node serving but places
 * nothing new there, until uncordon; drain does the same (its replicas are not moved, as
 * docs/models.md says) and shows the node as draining.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { eventually, quickAgentFlags } from "../helpers/llmgw_process.ts";
import { quickClusterFlags, startClusterControlPlane } from "../helpers/control_plane.ts";

const cpuProfile = "profiles: [{ engine: sim, gpus: 0, memory_gb: 1, cores: 1 }]";

Deno.test({
  name: "models and nodes: aliases, the on-demand wait's 503, cordon and drain",
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  const root = await Deno.makeTempDir({ prefix: "llmgw-readme-" });
  const c = await startClusterControlPlane(root, {
    flags: {
      ...quickClusterFlags,
      "on-demand-request-wait-ms": "1500",
      "engines-sim-tokens-per-second": "2000",
    },
  });
  const { admin, ctl, replicas, readyReplica, addModel: add } = c;
  try {
    await c.joinAgent("solo", { args: [...quickAgentFlags] });
    const key = (await admin("POST", "keys", { name: "readme" })).body.key as string;
    await admin("PATCH", "limits/global/global", { rpm: 100_000, tpm: 100_000_000 });
    const node = await eventually("the node ready", async () => {
      const nodes = (await admin("GET", "nodes")).body.data as { id: string; state: string }[];
      return nodes.find((n) => n.state === "ready" && "engines" in n);
    }, 30_000);
    const nodeState = async () =>
      ((await admin("GET", `nodes/${node.id}`)).body as { state: string }).state;

    await t.step("a model's aliases answer requests as its name does", async () => {
      await add(`
name: house-model
source: /models/house.gguf
aliases: [house, "team/house:latest"]
${cpuProfile}
`);
      await readyReplica("house-model");
      for (const name of ["house-model", "house", "team/house:latest"]) {
        const res = await c.chat(key, name);
        assertEquals(res.status, 200, `${name}: ${await res.clone().text()}`);
        assertEquals(res.headers.get("x-llmgw-served-model"), "house-model", name);
        await res.body?.cancel();
      }
      const unknown = await c.chat(key, "houses");
      assertEquals(unknown.status, 404);
      assertEquals((await unknown.json()).error.code, "model_not_found");
    });

    await t.step(
      "an on-demand model no node can hold: 503 with Retry-After and its phase",
      async () => {
        await add(`
name: needs-a-card
source: /models/card.gguf
on_demand: true
profiles: [{ engine: sim, gpus: 1 }]
`);
        const started = performance.now();
        const res = await c.chat(key, "needs-a-card");
        const waited = performance.now() - started;
        assertEquals(res.status, 503, await res.clone().text());
        assertEquals(res.headers.get("retry-after"), "10");
        const { error } = await res.json();
        assertEquals(error.code, "model_starting");
        assertMatch(error.message, /needs-a-card/);
        assertMatch(error.message, /waiting|unplaceable|no node/i);
        assert(waited >= 1_400, `answered after ${Math.round(waited)} ms, not after the wait`);
        assertEquals(await replicas("needs-a-card"), [], "nothing was started");
      },
    );

    for (const verb of ["cordon", "drain"] as const) {
      await t.step(
        `${verb}: what runs stays serving, nothing new is placed, until uncordon`,
        async () => {
          const before = await readyReplica("house-model");
          const set = await admin("POST", `nodes/${node.id}/${verb}`, {});
          assertEquals(set.status, 200, JSON.stringify(set.body));
          assertEquals(await nodeState(), verb === "cordon" ? "cordoned" : "draining");

          await add(`
name: after-${verb}
source: /models/after-${verb}.gguf
${cpuProfile}
`);
          // Several reconcile passes (300 ms each): still nothing for the new model.
          await eventually("explain naming the cordon", async () => {
            const ex = await ctl("model", "explain", `after-${verb}`);
            return /cordoned/.test(ex.text) ? ex : undefined;
          }, 10_000);
          await new Promise((r) => setTimeout(r, 1_500));
          assertEquals(await replicas(`after-${verb}`), []);
          const still = await replicas("house-model");
          assertEquals(still.map((r) => [r.id, r.state]), [[before.id, "ready"]], "not moved");
          const res = await c.chat(key, "house");
          assertEquals(res.status, 200);
          await res.body?.cancel();

          assertEquals((await admin("POST", `nodes/${node.id}/uncordon`, {})).status, 200);
          assertEquals(await nodeState(), "ready");
          const placed = await readyReplica(`after-${verb}`, 30_000);
          assertEquals(placed.node, "solo");
          // Its core back for the next step: this node has two, and house-model holds one.
          const removed = await ctl("model", "remove", `after-${verb}`);
          assertEquals(removed.code, 0, removed.text);
          await eventually("the removed model's replica stopped", async () => {
            const all = (await admin("GET", "replicas")).body.data as { model: string }[];
            return all.some((r) => r.model === `after-${verb}`) ? undefined : true;
          }, 20_000);
        },
      );
    }
  } finally {
    await c.close();
  }
});
