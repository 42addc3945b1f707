/**
 * `llmgw up` runs a real node: its agent joins the control plane over the loopback cluster
 * listener, the demo model is a catalog entry the reconciler placed on that node, and a second
 * `up` on the same data directory comes back as the same node (no new node per run).
 */
import { assert, assertEquals } from "../assert.ts";
import { startAppliance } from "../helpers/appliance.ts";

/** Processes whose process group is `pgid` (Linux /proc): an engine's whole tree. */
async function groupMembers(pgid: number): Promise<number[]> {
  const out: number[] = [];
  for await (const e of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      const stat = await Deno.readTextFile(`/proc/${e.name}/stat`);
      // Fields after the command name (which may hold spaces): state ppid pgrp …
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(rest[2]) === pgid && rest[0] !== "Z") out.push(Number(e.name));
    } catch {
      // Gone while reading.
    }
  }
  return out;
}

interface NodeJson {
  id: string;
  name: string;
  state: string;
}

Deno.test("llmgw up: its model runs on its own joined node, kept across runs", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "llmgw-up-node-" });
  try {
    const look = async (url: string) => {
      const token = (await Deno.readTextFile(`${dataDir}/admin.token`)).trim();
      const get = async (path: string) => {
        const r = await fetch(`${url}/api/v1/${path}`, {
          headers: { authorization: `Bearer ${token}` },
        });
        assertEquals(r.status, 200, path);
        return (await r.json()).data;
      };
      return {
        nodes: await get("nodes") as NodeJson[],
        replicas: await get("replicas?model=demo") as { node: string; state: string }[],
        models: await get("models") as { name: string }[],
      };
    };
    const first = await startAppliance({ dataDir });
    let nodeId: string;
    let pids: number[] = [];
    let running = 0;
    try {
      const seen = await look(first.url);
      assertEquals(seen.nodes.length, 1, JSON.stringify(seen.nodes));
      const node = seen.nodes[0]!;
      assertEquals(node.name, "local");
      assertEquals(node.state, "ready");
      nodeId = node.id;
      assert(seen.models.some((m) => m.name === "demo"), "demo is in the catalog");
      assertEquals(seen.replicas.length, 1);
      assertEquals(seen.replicas[0]!.node, "local");
      assertEquals(seen.replicas[0]!.state, "ready");
    } finally {
      pids = (JSON.parse(await Deno.readTextFile(`${dataDir}/node/engines/replicas.json`)) as {
        replicas: { pid: number }[];
      }).replicas.map((r) => r.pid);
      for (const pid of pids) running += (await groupMembers(pid)).length;
      assertEquals(await first.stop(), 0, first.output());
    }
    assertEquals(pids.length, 1, "one engine ran");
    assert(running > 0, "the engine's group was alive before Ctrl-C");
    for (const pid of pids) {
      assertEquals(await groupMembers(pid), [], "Ctrl-C stopped the engine's whole group");
    }
    const second = await startAppliance({ dataDir });
    try {
      const seen = await look(second.url);
      assertEquals(seen.nodes.map((n) => n.id), [nodeId], "the same node, not a new one");
      assertEquals(seen.nodes[0]!.state, "ready");
      const res = await fetch(`${second.url}/v1/chat/completions`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${second.key}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ model: "demo", messages: [{ role: "user", content: "hi" }] }),
      });
      assertEquals(res.status, 200);
      await res.body?.cancel();
    } finally {
      assertEquals(await second.stop(), 0, second.output());
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
