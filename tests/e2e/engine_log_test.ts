/**
 * A replica's engine log end to end: an in-process control plane, an agent as a real process
 * joined over the cluster's TLS listener, a sim engine it runs. The admin API and `ctl model
 * logs` show the engine's own line (the sim engine prints `sim-engine serving MODEL …`) and the
 * agent's start note, and `--follow` prints what the engine's restart adds (once); a node whose
 * agent predates the log request (a channel node saying hello without the feature) is named too
 * old, at once, rather than waited on.
 */
import { assert, assertEquals, assertMatch, assertRejects } from "../assert.ts";
import { UsageError } from "../../core/command.ts";
import { eventually, quickAgentFlags, spawnLlmgw } from "../helpers/llmgw_process.ts";
import { quickClusterFlags, startClusterControlPlane } from "../helpers/control_plane.ts";
import { joinChannelNode } from "../helpers/channel_node.ts";

/** What `f` wrote with console.error (ctl says there why it shows no lines), beside its result. */
async function withStderr<T>(f: () => Promise<T>): Promise<T & { stderr: string }> {
  const said: string[] = [];
  const error = console.error;
  console.error = (...a: unknown[]) => said.push(a.join(" "));
  try {
    return { ...(await f()), stderr: said.join("\n") };
  } finally {
    console.error = error;
  }
}

Deno.test({
  name: "engine log: admin API and ctl show the engine's lines; an older agent is named too old",
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  const root = await Deno.makeTempDir({ prefix: "llmgw-engine-log-" });
  const c = await startClusterControlPlane(root, { flags: { ...quickClusterFlags } });
  try {
    await c.joinAgent("logs", { args: [...quickAgentFlags] });
    await c.addModel(`
name: tiny
source: /models/tiny.gguf
profiles: [{ engine: sim, gpus: 0, memory_gb: 1, cores: 1 }]
`);
    const replica = await c.readyReplica("tiny", 30_000);

    await t.step("the admin API gives the last lines, the engine's own among them", async () => {
      const r = await eventually("the sim engine's line in the log", async () => {
        const got = await c.admin("GET", `models/tiny/replicas/${replica.id}/log?lines=50`);
        assertEquals(got.status, 200, JSON.stringify(got.body));
        const lines = got.body.lines as string[];
        return lines.some((l) => l.includes("sim-engine serving tiny")) ? got.body : undefined;
      }, 10_000);
      assertEquals(r.status, "ok");
      assertEquals(r.node, "logs");
      const lines = r.lines as string[];
      assert(lines.some((l) => /^\[llmgw\] engine started, pid \d+$/.test(l)), lines.join("\n"));
      const one = await c.admin("GET", `models/tiny/replicas/${replica.id}/log?lines=1`);
      assertEquals((one.body.lines as string[]).length, 1);
      const bad = await c.admin("GET", `models/tiny/replicas/${replica.id}/log?lines=501`);
      assertEquals(bad.status, 400, JSON.stringify(bad.body));
      const none = await c.admin("GET", `models/tiny/replicas/no-such-replica/log`);
      assertEquals(none.status, 404, JSON.stringify(none.body));
    });

    await t.step("ctl model logs prints them, with --replica and --lines", async () => {
      const all = await c.ctl("model", "logs", "tiny");
      assertEquals(all.code, 0, all.text);
      assertMatch(all.text, /sim-engine serving tiny with \d+ slot\(s\)/);
      const one = await c.ctl("model", "logs", "tiny", "--replica", replica.id, "--lines", "2");
      assertEquals(one.code, 0, one.text);
      assertEquals(one.text.trim().split("\n").length, 2, one.text);
      const json = await c.ctl("model", "logs", "tiny", "--replica", replica.id, "--json");
      assertEquals(JSON.parse(json.text).status, "ok");
      await assertRejects(
        () => c.ctl("model", "logs", "tiny", "--lines", "0"),
        UsageError,
        "--lines must be a whole number from 1 to 500",
      );
    });

    await t.step("ctl model logs --follow prints what a restart adds, once", async () => {
      const before = await c.admin("GET", `models/tiny/replicas/${replica.id}/log`);
      const pid = Number(
        /engine started, pid (\d+)/.exec((before.body.lines as string[]).join("\n"))![1],
      );
      const follow = spawnLlmgw(
        ["ctl", "model", "logs", "tiny", "--follow", "--url", c.url, "--token", c.token],
        {},
        "follow",
      );
      try {
        await follow.waitFor(/sim-engine serving tiny/, 30_000);
        // The agent restarts a killed engine under the same replica: new lines in the same log.
        Deno.kill(pid, "SIGKILL");
        await follow.waitFor(
          /engine pid \d+ was killed by SIGKILL[\s\S]*engine started, pid/,
          30_000,
        );
        await follow.waitFor(/sim-engine serving tiny[\s\S]*sim-engine serving tiny/, 30_000);
        const out = follow.output();
        assertEquals(out.split(`engine started, pid ${pid}\n`).length, 2, `printed once:\n${out}`);
      } finally {
        await follow.kill("SIGTERM");
      }
    });

    await t.step("a node whose agent predates the request is named too old", async () => {
      const caPem = await Deno.readTextFile(`${root}/cp/tls/ca.pem`);
      const old = await joinChannelNode(c.cp, caPem, "old");
      // It answers the channel's pings, as any agent does, so it stays connected meanwhile.
      let answered = 0;
      const pongs = setInterval(() => {
        const pings = old.inbox.filter((m) => m.type === "ping");
        for (const p of pings.slice(answered)) old.send({ type: "pong", id: p.id });
        answered = pings.length;
      }, 100);
      try {
        old.send({
          type: "heartbeat",
          replicas: [{
            replicaId: "old-1",
            model: "tiny",
            engine: "sim",
            state: "ready",
            baseUrl: "http://127.0.0.1:9",
            pid: 7,
          }],
        });
        const r = await eventually("the old node's replica is known", async () => {
          const got = await c.admin("GET", "models/tiny/replicas/old-1/log");
          return got.status === 200 ? got.body : undefined;
        }, 5_000);
        assertEquals(r.status, "agent_too_old");
        assertEquals(r.lines, []);
        assert(!old.inbox.some((m) => m.type === "engine_log"), "an older agent is not asked");
        const said = await withStderr(() => c.ctl("model", "logs", "tiny", "--replica", "old-1"));
        assertEquals(said.code, 1, said.text);
        assertMatch(said.stderr, /this node's agent \(test\) is too old to show logs/);
      } finally {
        clearInterval(pongs);
        await old.close();
      }
    });
  } finally {
    await c.close();
  }
});
