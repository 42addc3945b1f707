/**
 * `llmgw join` keeps the agent flags it was given in agent.yaml, so a later `llmgw agent --data
 * DIR` runs the same way; and agents joined from one host without --name get distinct names
 * (host, host-2), the name the control plane gave being the one kept and reported.
 */
import { assertEquals } from "../assert.ts";
import { spawnLlmgw } from "../helpers/llmgw_process.ts";
import { quickClusterFlags, startClusterControlPlane } from "../helpers/control_plane.ts";
import { loadAgentConfig } from "../../agent/agent_config.ts";

Deno.test({
  name: "join: its agent flags are saved to agent.yaml; two joins from one host get two names",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const root = await Deno.makeTempDir({ prefix: "llmgw-join-" });
  const c = await startClusterControlPlane(root, { flags: { ...quickClusterFlags } });
  try {
    const join = async (dir: string, extra: string[]) => {
      const { code } = await c.cp.deps.nodes!.joinCodes.create({ labels: {}, ttlMs: 60_000 });
      const p = spawnLlmgw(["join", code, "--data", dir, "--no-run", ...extra]);
      const status = await p.status;
      assertEquals(status.code, 0, p.output());
      return p.output();
    };
    const host = Deno.hostname();
    const first = await join(`${root}/a`, [
      "--engines-ports",
      "43100-43120",
      "--engines-host",
      "127.0.0.1",
    ]);
    const second = await join(`${root}/b`, []);
    assertEquals(/Joined as node (\S+)/.exec(first)?.[1], host);
    assertEquals(/Joined as node (\S+)/.exec(second)?.[1], `${host}-2`);

    const a = await loadAgentConfig({ flags: { data: `${root}/a` }, env: {} });
    assertEquals([a.enginePorts, a.engineHost, a.name], ["43100-43120", "127.0.0.1", host]);
    const b = await loadAgentConfig({ flags: { data: `${root}/b` }, env: {} });
    assertEquals([b.enginePorts, b.name], ["30000-30999", `${host}-2`]);
    const names = (await c.admin("GET", "nodes")).body.data.map((n: { name: string }) => n.name);
    assertEquals(names.sort(), [host, `${host}-2`]);
  } finally {
    await c.close();
  }
});
