/**
 * Nodes end to end, every part a separate process on loopback: a control plane (`llmgw server`),
 * a GPU node (the stub NVML library with two fake cards) and a CPU-only node, both joined with
 * codes over the cluster's TLS listener. Replicas on each answer through the control plane's /v1;
 * a killed engine is restarted; an agent killed with SIGKILL shows its node lost while its engine
 * keeps answering through the control plane (past the old ~10 s replacement point, within
 * nodes.replace_after_ms), and after a restart it is ready again with its engine adopted (same
 * pid, no request failed); an agent ended with SIGTERM (systemd's restart) leaves its engine
 * running for the next one the same way; an engine that exits at start is
 * reported with its output; a used join code and a removed node are refused.
 *
 * Short heartbeats and timeouts (settings) keep it fast.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import {
  eventually,
  type LlmgwProcess,
  loopbackListeners,
  quickAgentFlags,
  spawnLlmgw,
} from "../helpers/llmgw_process.ts";
import { adminJson, shortChat } from "../helpers/control_plane.ts";
import {
  buildStubNvml,
  StubNvmlUnavailable,
} from "../../agent/hardware/testdata/build_stub_nvml.ts";

interface NodeJson {
  id: string;
  name: string;
  state: string;
  labels: Record<string, string>;
  version: string | null;
  gpu?: { source: string; gpus: { name: string; memoryTotalBytes?: number }[] };
  host?: { cores?: number; ramTotalBytes?: number };
  engines?: { name: string; version?: string }[];
  replicas: { replicaId: string; state: string; pid: number; restarts?: number; error?: string }[];
}

Deno.test({
  name:
    "nodes: join, report, serve through /v1, survive kills, refuse used codes and removed nodes",
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  const root = await Deno.makeTempDir({ prefix: "llmgw-nodes-" });
  let stub: string | undefined;
  try {
    stub = await buildStubNvml(root);
  } catch (e) {
    if (!(e instanceof StubNvmlUnavailable)) throw e;
    console.warn(`the GPU node runs without the stub NVML: ${e.message}`);
  }
  const procs: LlmgwProcess[] = [];
  const start = (args: string[], label: string, env: Record<string, string> = {}) => {
    const p = spawnLlmgw(args, env, label);
    procs.push(p);
    return p;
  };
  try {
    const cpDir = `${root}/cp`;
    const init = start(["init", "--data", cpDir], "init");
    assertEquals((await init.status).code, 0, init.output());
    const server = start([
      "server",
      "--data",
      cpDir,
      ...loopbackListeners,
      "--portal",
      "false",
      "--nodes-heartbeat-ms",
      "300",
      "--nodes-lost-after-ms",
      "2000",
      "--nodes-channel-idle-ms",
      "1000",
      "--nodes-channel-answer-ms",
      "1000",
    ], "server");
    const url = (await server.waitFor(/control plane on (http:\/\/\S+)/))[1]!;
    const clusterUrl = (await server.waitFor(/cluster listener on (https:\/\/\S+)/))[1]!;
    const token = (await Deno.readTextFile(`${cpDir}/admin.token`)).trim();
    const admin = adminJson(url, token);
    const nodes = async () => (await admin("GET", "nodes")).body.data as NodeJson[];
    const node = async (name: string) => (await nodes()).find((n) => n.name === name);
    const ctl = async (...args: string[]) => {
      const p = start(["ctl", ...args, "--url", url, "--token", token], "ctl");
      const s = await p.status;
      return { code: s.code, text: p.output() };
    };

    // Join codes: one through ctl (what an operator types), one through the API.
    const made = await ctl("nodes", "join-code", "--labels", "zone=a,tier=gpu", "--json");
    assertEquals(made.code, 0, made.text);
    const codeA = JSON.parse(made.text).code as string;
    assertMatch(codeA, /^llmgwj1\./);
    const codeB = (await admin("POST", "nodes/join-codes", { labels: { zone: "b" } })).body
      .code as string;

    const gpuDir = `${root}/gpu-node`;
    const cpuDir = `${root}/cpu-node`;
    const gpuArgs = [
      ...quickAgentFlags,
      "--gpu-nvml-library",
      stub ?? `${root}/absent-libnvidia-ml.so.1`,
      "--gpu-nvidia-smi",
      `${root}/absent-nvidia-smi`,
    ];
    const cpuArgs = [
      ...quickAgentFlags,
      "--gpu-nvml-library",
      `${root}/absent-libnvidia-ml.so.1`,
      "--gpu-nvidia-smi",
      `${root}/absent-nvidia-smi`,
    ];
    let agentA = start(
      ["join", codeA, "--data", gpuDir, "--name", "gpu-node", ...gpuArgs],
      "agent-gpu",
    );
    const agentB = start(
      ["join", codeB, "--data", cpuDir, "--name", "cpu-node", ...cpuArgs],
      "agent-cpu",
    );

    await t.step("both nodes join and report their hardware", async () => {
      await agentA.waitFor(/Joined as node gpu-node/);
      const credMode = (await Deno.stat(`${gpuDir}/node.credential`)).mode! & 0o777;
      assertEquals(credMode, 0o600);
      const [a, b] = await eventually("both nodes ready with a GPU report", async () => {
        const a = await node("gpu-node");
        const b = await node("cpu-node");
        return a?.state === "ready" && b?.state === "ready" && a.gpu && b.gpu && a.host
          ? [a, b]
          : undefined;
      });
      assertEquals(a.labels, { zone: "a", tier: "gpu" });
      assertEquals(b.labels, { zone: "b" });
      assert(a.version && b.version);
      assert((a.host?.cores ?? 0) > 0 && (a.host?.ramTotalBytes ?? 0) > 0);
      assert(b.engines?.some((e) => e.name === "sim"), "the built-in engine is reported");
      assertEquals(b.gpu?.source, "none");
      assertEquals(b.gpu?.gpus.length, 0);
      if (stub) {
        assertEquals(a.gpu?.source, "nvml");
        assertEquals(a.gpu?.gpus.map((g) => g.name), [
          "NVIDIA GeForce RTX 4090",
          "NVIDIA H100 80GB HBM3",
        ]);
        assertEquals(a.gpu?.gpus[1]?.memoryTotalBytes, 80 * 2 ** 30);
      }
      const listed = await ctl("nodes");
      assertEquals(listed.code, 0, listed.text);
      assertMatch(
        listed.text,
        /gpu-node\s+\S+\s+ready\s+tier=gpu,zone=a|gpu-node\s+\S+\s+ready\s+zone=a,tier=gpu/,
      );
      assertMatch(listed.text, /cpu-node\s+\S+\s+ready\s+zone=b\s+none\s+sim /);
      if (stub) assertMatch(listed.text, /NVIDIA H100 80GB HBM3 78\.0\/80\.0 GiB free/);
    });

    await t.step("a used join code is refused, saying so", async () => {
      const again = start(["join", codeA, "--data", `${root}/third`, "--no-run"], "join-again");
      assertEquals((await again.status).code, 1);
      assertMatch(again.output(), /already used/);
    });

    const key = (await admin("POST", "keys", { name: "nodes-test" })).body.key as string;
    // Polling for answers on a loaded machine can pass init's default 60 requests a minute.
    await admin("PATCH", "limits/global/global", { rpm: 100_000, tpm: 100_000_000 });
    const chat = async (model: string) => {
      const res = await shortChat(url, key, model);
      const body = await res.json();
      return res.status === 200 ? body : undefined;
    };
    const replica = async (nodeName: string, replicaId: string) =>
      (await node(nodeName))?.replicas.find((s) => s.replicaId === replicaId);

    await t.step("a replica on each node answers through the control plane's /v1", async () => {
      const a = await admin("POST", "nodes/gpu-node/replicas", {
        replicaId: "gpu-sim",
        model: "sim-on-gpu",
        engine: "sim",
        args: ["--tokens-per-second", "2000"],
      });
      assertEquals(a.status, 202, JSON.stringify(a.body));
      const b = await ctl(
        "nodes",
        "start-replica",
        "cpu-node",
        "--replica-id",
        "cpu-sim",
        "--model",
        "sim-on-cpu",
        "--engine",
        "sim",
        "--args=--tokens-per-second 2000",
      );
      assertEquals(b.code, 0, b.text);
      for (const model of ["sim-on-gpu", "sim-on-cpu"]) {
        const body = await eventually(`an answer from ${model}`, () => chat(model));
        assert(body.choices[0].message.content.length > 0);
      }
      // A repeat start is idempotent: the same process.
      const before = await replica("gpu-node", "gpu-sim");
      await admin("POST", "nodes/gpu-node/replicas", {
        replicaId: "gpu-sim",
        model: "sim-on-gpu",
        engine: "sim",
      });
      await new Promise((r) => setTimeout(r, 700));
      assertEquals((await replica("gpu-node", "gpu-sim"))?.pid, before?.pid);
      // A repeat through ctl too.
      const again = await admin("POST", "nodes/gpu-node/replicas", {
        replicaId: "gpu-sim",
        model: "sim-on-gpu",
        engine: "sim",
      });
      assertEquals(again.status, 202, JSON.stringify(again.body));
      const byCtl = await ctl(
        "nodes",
        "start-replica",
        "gpu-node",
        "--replica-id",
        "gpu-sim",
        "--model",
        "sim-on-gpu",
        "--engine",
        "sim",
      );
      assertEquals(byCtl.code, 0, byCtl.text);
      await new Promise((r) => setTimeout(r, 700));
      assertEquals((await replica("gpu-node", "gpu-sim"))?.pid, before?.pid);
    });

    await t.step("an engine killed is restarted", async () => {
      const before = await replica("cpu-node", "cpu-sim");
      assert(before && before.pid > 0);
      Deno.kill(before.pid, "SIGKILL");
      const after = await eventually("the engine restarted", async () => {
        const s = await replica("cpu-node", "cpu-sim");
        return s?.state === "ready" && s.pid !== before.pid ? s : undefined;
      });
      assert((after.restarts ?? 0) >= 1);
      await eventually("answers again", () => chat("sim-on-cpu"));
    });

    await t.step(
      "a frozen agent (its connection open, silent) is lost, and back when it thaws",
      async () => {
        // SIGSTOP is a powered-off machine as the network sees it: nothing closes the connection.
        Deno.kill(agentB.pid, "SIGSTOP");
        try {
          await eventually(
            "the silent node lost",
            async () => (await node("cpu-node"))?.state === "lost" ? true : undefined,
            10_000,
          );
        } finally {
          Deno.kill(agentB.pid, "SIGCONT");
        }
        await eventually(
          "the node ready again",
          async () => (await node("cpu-node"))?.state === "ready" ? true : undefined,
          10_000,
        );
        await eventually("answers again", () => chat("sim-on-cpu"));
      },
    );

    /** Chats with `model` every 250 ms until stopped; counts the answers and the failures. */
    const keepAsking = (model: string) => {
      const tally = { ok: 0, failed: [] as string[] };
      let on = true;
      const loop = (async () => {
        while (on) {
          const res = await shortChat(url, key, model).catch((e) => e as Error);
          if (res instanceof Response && res.status === 200) tally.ok++;
          else if (res instanceof Response) tally.failed.push(`${res.status} ${await res.text()}`);
          else tally.failed.push(String(res));
          if (res instanceof Response) await res.body?.cancel().catch(() => {});
          await new Promise((r) => setTimeout(r, 250));
        }
      })();
      return { tally, stop: () => ((on = false), loop) };
    };

    await t.step(
      "an agent killed with SIGKILL: its engine keeps answering, and is adopted by the next",
      async () => {
        const before = await replica("gpu-node", "gpu-sim");
        assert(before?.state === "ready" && before.pid > 0);
        const asking = keepAsking("sim-on-gpu");
        const killedAt = Date.now();
        await agentA.kill("SIGKILL");
        await eventually(
          "the node lost",
          async () => (await node("gpu-node"))?.state === "lost" ? true : undefined,
          15_000,
        );
        // Past the ~10 s at which the control plane used to replace a gone node's replicas.
        const waitMs = 15_000 - (Date.now() - killedAt);
        if (waitMs > 0) await new Promise((r) => setTimeout(r, waitMs));
        // Given a dead control URL first, the agent moves on to the next one.
        agentA = start([
          "agent",
          "--data",
          gpuDir,
          "--control-urls",
          `https://127.0.0.1:9,${clusterUrl}`,
          ...gpuArgs,
        ], "agent-gpu-2");
        const s = await eventually("the node ready again with its replica", async () => {
          const n = await node("gpu-node");
          const s = n?.replicas.find((x) => x.replicaId === "gpu-sim");
          return n?.state === "ready" && s?.state === "ready" ? s : undefined;
        });
        await new Promise((r) => setTimeout(r, 1_000));
        await asking.stop();
        assertEquals(s.pid, before.pid, "the running engine was adopted, not restarted");
        assertEquals(asking.tally.failed, [], "no request failed while the agent was away");
        assert(asking.tally.ok >= 20, `requests kept being answered (${asking.tally.ok})`);
      },
    );

    await t.step(
      "an agent ended with SIGTERM (a systemd restart) leaves its engine to the next",
      async () => {
        const before = await replica("gpu-node", "gpu-sim");
        assert(before?.state === "ready" && before.pid > 0);
        const asking = keepAsking("sim-on-gpu");
        assertEquals((await agentA.kill("SIGTERM")).code, 0, agentA.output());
        assert(alive(before.pid), "the engine outlived its agent");
        agentA = start(["agent", "--data", gpuDir, ...gpuArgs], "agent-gpu-3");
        const s = await eventually("the node ready again with its replica", async () => {
          const n = await node("gpu-node");
          const s = n?.replicas.find((x) => x.replicaId === "gpu-sim");
          return n?.state === "ready" && s?.state === "ready" ? s : undefined;
        });
        await asking.stop();
        assertEquals(s.pid, before.pid, "adopted, not restarted");
        assertEquals(asking.tally.failed, [], "no request failed");
      },
    );

    await t.step("an engine that exits at start is reported with its output", async () => {
      const r = await admin("POST", "nodes/cpu-node/replicas", {
        replicaId: "broken",
        model: "broken-model",
        engine: "sim",
        args: ["--no-such-flag"],
      });
      assertEquals(r.status, 202);
      const s = await eventually("the failed start reported", async () => {
        const s = await replica("cpu-node", "broken");
        return s?.state === "failed" && s.error ? s : undefined;
      });
      assertMatch(s.error!, /engine output[\s\S]*no-such-flag/);
      const stop = await admin("DELETE", "nodes/cpu-node/replicas/broken");
      assertEquals(stop.status, 202);
    });

    await t.step("a removed node is refused and stops its engines", async () => {
      const engine = await replica("cpu-node", "cpu-sim");
      const credential = (await Deno.readTextFile(`${cpuDir}/node.credential`)).trim();
      const removed = await ctl("nodes", "remove", "cpu-node");
      assertEquals(removed.code, 0, removed.text);
      assertEquals((await agentB.status).code, 3, agentB.output());
      assertMatch(agentB.output(), /removed/);
      assertEquals(await node("cpu-node"), undefined);
      const client = Deno.createHttpClient({
        caCerts: [await Deno.readTextFile(`${cpuDir}/ca.pem`)],
      });
      try {
        const res = await fetch(`${clusterUrl}/cluster/v1/channel`, {
          client,
          headers: { authorization: `Bearer ${credential}` },
        });
        assertEquals(res.status, 401);
        assertEquals((await res.json()).error.code, "node_credential_invalid");
      } finally {
        client.close();
      }
      assert(engine && !alive(engine.pid), "the removed node's engine was stopped");
    });

    await t.step("a stopped agent stops its engines", async () => {
      const s = await replica("gpu-node", "gpu-sim");
      assertEquals((await agentA.kill("SIGINT")).code, 0, agentA.output());
      assert(s && !alive(s.pid), `engine stopped with the agent:\n${agentA.output()}`);
    });
  } finally {
    for (const p of procs) await p.kill("SIGKILL");
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
});

/** A zombie (exited, not yet reaped by whatever adopted it) counts as gone. */
function alive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}
