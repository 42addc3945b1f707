/**
 * Models end to end: an in-process control plane (its reconciler on short settings) and agents
 * as real processes joined over the cluster's TLS listener, running sim engines — "big" with the
 * stub NVML's two cards (24 GiB and 80 GiB), "judge" with one 24 GiB card and the role label
 * `llmgw.role: judge`, and "cpu" with no GPU. Checks: a model lands on the node that fits and
 * explain names why the others were rejected; a two-card model takes two cards of one node; a
 * role-labelled node takes only its role; max output alone changes at once with no restart and
 * is enforced; a context change restarts replicas one at a
 * time while a client loop sees no error; a lost node's replicas move elsewhere. With
 * LLAMA_SERVER set, `ctl model serve` of the tiny GGUF fixture answers through /v1. On-demand
 * starts, eviction and taking turns on a card are in models_clock_test.ts, on a clock the test
 * moves.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { eventually, quickAgentFlags } from "../helpers/llmgw_process.ts";
import {
  clientLoop,
  quickClusterFlags,
  startClusterControlPlane,
} from "../helpers/control_plane.ts";
import {
  buildStubNvml,
  stubNvmlUnavailable,
} from "../../agent/hardware/testdata/build_stub_nvml.ts";
import { skipNote } from "../helpers/skip.ts";

Deno.test({
  name: "models: placement, explain, roles, max output, rolling context, node loss" +
    skipNote(stubNvmlUnavailable),
  ignore: !!stubNvmlUnavailable,
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  const root = await Deno.makeTempDir({ prefix: "llmgw-models-" });
  const stub = await buildStubNvml(root);
  const c = await startClusterControlPlane(root, {
    flags: {
      ...quickClusterFlags,
      "nodes-lost-after-ms": "2000",
      "reconciler-drain-grace-ms": "5000",
      "engines-sim-tokens-per-second": "2000",
    },
  });
  const { admin, ctl, logs, replicas, readyReplica, addModel: add } = c;

  try {
    const args = [...quickAgentFlags];
    await c.joinAgent("big", { nvml: stub, args });
    await c.joinAgent("judge", {
      labels: { "llmgw.role": "judge" },
      nvml: stub,
      args,
      env: { STUB_NVML_GPUS: "1" },
    });
    const cpuAgent = await c.joinAgent("cpu", { args });
    const key = (await admin("POST", "keys", { name: "models-test" })).body.key as string;
    // The client loops below send more than init's default 60 requests a minute per key.
    await admin("PATCH", "limits/global/global", { rpm: 100_000, tpm: 100_000_000 });
    const chat = (model: string, extra: Record<string, unknown> = {}) => c.chat(key, model, extra);

    await eventually("three nodes reporting hardware", async () => {
      const nodes = (await admin("GET", "nodes")).body.data as {
        name: string;
        state: string;
        gpu?: unknown;
        engines?: unknown[];
      }[];
      return nodes.length === 3 && nodes.every((n) => n.state === "ready" && n.gpu && n.engines)
        ? nodes
        : undefined;
    }, 30_000);

    await t.step(
      "a model lands on the node that fits; explain says why not the others",
      async () => {
        await add(`
name: large
source: /models/large.gguf
profiles:
  - engine: sim
    gpus: 1
    gpu: { min_memory_gb: 40 }
`);
        const r = await readyReplica("large");
        assertEquals(r.node, "big");
        assertEquals(r.gpus, [1], "the 80 GiB card");
        const ex = await ctl("model", "explain", "large");
        assertEquals(ex.code, 0, ex.text);
        assertMatch(
          ex.text,
          /replica \S+ on big \(ready\): card\(s\) 1 × .*the node still fits it/,
        );
        assertMatch(ex.text, /a new replica: large:/);
        assertMatch(ex.text, /judge/);
        assertMatch(ex.text, /cpu/);
        assertMatch(ex.text, /role|label/i);
        const res = await chat("large");
        assertEquals(res.status, 200, await res.clone().text());
        await res.body?.cancel();
      },
    );

    await t.step("a two-card model takes two cards of one node", async () => {
      await add(`
name: pair
source: /models/pair.gguf
profiles: [{ engine: sim, gpus: 2 }]
`);
      const r = await readyReplica("pair");
      assertEquals(r.node, "big");
      assertEquals([...r.gpus].sort(), [0, 1]);
    });

    await t.step("a role-labelled node takes only its role", async () => {
      await add(`
name: judge-model
source: /models/judge.gguf
profiles:
  - engine: sim
    gpus: 1
    node_selector: { llmgw.role: judge }
`);
      const r = await readyReplica("judge-model");
      assertEquals(r.node, "judge");
      assertEquals(r.gpus, [0]);
      for (const m of ["large", "pair"]) {
        assert((await replicas(m)).every((x) => x.node !== "judge"), `${m} stays off the judge`);
      }
    });

    await t.step("max output alone: in force at once, no restart", async () => {
      await add(`
name: chatty
source: /models/chatty.gguf
context_length: 2048
profiles: [{ engine: sim, gpus: 0, memory_gb: 1, cores: 1 }]
`);
      const before = await readyReplica("chatty");
      const r = await ctl("model", "context", "chatty", "--max-output", "8");
      assertEquals(r.code, 0, r.text);
      assertMatch(r.text, /no restart/);
      const refused = await chat("chatty", { max_tokens: 16 });
      assertEquals(refused.status, 400, await refused.clone().text());
      assertMatch((await refused.json()).error.message, /max output of 8/);
      const ok = await chat("chatty", { max_tokens: 8 });
      assertEquals(ok.status, 200, await ok.clone().text());
      await ok.body?.cancel();
      const models = await (await fetch(`${c.url}/v1/models`, {
        headers: { authorization: `Bearer ${key}` },
      })).json();
      const entry = models.data.find((m: { id: string }) => m.id === "chatty");
      assertEquals(entry.context_length, 2048);
      assertEquals(entry.max_output_tokens, 8);
      await new Promise((r) => setTimeout(r, 700));
      const after = await replicas("chatty");
      assertEquals(after.map((x) => x.id), [before.id], `same replica: ${JSON.stringify(after)}`);
    });

    await t.step(
      "a context change restarts replicas one by one; a client loop sees no error",
      async () => {
        const before = await readyReplica("chatty");
        const loop = clientLoop(() => chat("chatty"));
        const r = await ctl("model", "context", "chatty", "1024");
        assertEquals(r.code, 0, r.text);
        assertMatch(r.text, /restart one by one/);
        await eventually("a new replica ready and the old one gone", async () => {
          const now = await replicas("chatty");
          return now.length === 1 && now[0]!.id !== before.id && now[0]!.state === "ready"
            ? now
            : undefined;
        }, 30_000).catch(async (e) => {
          await loop.stop();
          throw new Error(
            `${e.message}\n${JSON.stringify(await replicas("chatty"))}\n${
              JSON.stringify((await admin("GET", "models/chatty/explain")).body.notes)
            }\n${logs.filter((l) => /chatty|replica/.test(l)).slice(-15).join("\n")}`,
          );
        });
        const { answered, failures } = await loop.stop();
        assertEquals(failures, []);
        assert(answered > 0);
      },
    );

    await t.step(
      "ctl restart --model: the new replica ready first, no request dropped",
      async () => {
        const before = await readyReplica("chatty");
        const clients = clientLoop(() => chat("chatty"));
        const r = await ctl("restart", "--model", "chatty");
        assertEquals(r.code, 0, r.text);
        assertMatch(r.text, /Restarting 1 replica/);
        await eventually("chatty replaced", async () => {
          const now = await replicas("chatty");
          return now.length === 1 && now[0]!.id !== before.id && now[0]!.state === "ready"
            ? now
            : undefined;
        }, 30_000).finally(() => clients.stop());
        const { answered, failures } = await clients.stop();
        assertEquals(failures, []);
        assert(answered > 0);
      },
    );

    await t.step("a lost node's replicas move elsewhere", async () => {
      // Removing `pair` gives its core on "big" back (a 2-core machine has 2 cores per node).
      const removed = await ctl("model", "remove", "pair");
      assertEquals(removed.code, 0, removed.text);
      await eventually("pair gone", async () => (await replicas("pair")).length === 0 || undefined);
      // `chatty` is a CPU model; whichever node has it, another can take it.
      const where = await readyReplica("chatty");
      const victim = c.agents[["big", "judge", "cpu"].indexOf(where.node)]!;
      const node = (await admin("GET", `nodes/${where.node}`)).body as {
        replicas: { pid: number }[];
      };
      await victim.kill("SIGKILL");
      for (const s of node.replicas) {
        try {
          Deno.kill(-s.pid, "SIGKILL");
        } catch {
          // Already gone.
        }
      }
      const moved = await eventually("chatty ready on another node", async () => {
        return (await replicas("chatty")).find((x) => x.state === "ready" && x.node !== where.node);
      }, 30_000).catch(async (e) => {
        throw new Error(
          `${e.message}\n${JSON.stringify(await replicas("chatty"))}\n${
            JSON.stringify((await admin("GET", "models/chatty/explain")).body)
          }\n${logs.slice(-15).join("\n")}`,
        );
      });
      assert(moved.node !== where.node);
      void cpuAgent;
    });

    await t.step("a stopped model tells its clients an administrator stopped it", async () => {
      const r = await ctl("model", "stop", "judge-model");
      assertEquals(r.code, 0, r.text);
      const res = await chat("judge-model");
      assertEquals(res.status, 503);
      assertMatch((await res.json()).error.message, /stopped by an administrator/);
    });
  } finally {
    await c.close();
  }
});
