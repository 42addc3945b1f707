/**
 * Models end to end where time matters, on the control plane's own clock: the control plane runs
 * in-process on a FakeClock that only the test moves (its reconciler the real one, at the default
 * `evict_after_idle` of 2 min and `min_lifetime` of 5 min), agents are real processes on the stub
 * NVML running sim engines. "solo" has one 24 GiB card; each on-demand model's file is a sparse
 * 12 GiB GGUF, so the card holds one of them at a time. "duo" has two cards (24 and 80 GiB).
 *
 * Checks: an on-demand model starts on its first request; past idle but within its minimum life
 * it stays; past both it is stopped and its engine process is gone; a second on-demand model
 * waits while the first is within its minimum life and, once that is over, the first makes room
 * ("taking turns on a card") and the waiting request is answered. Then, through the real
 * `llmgw ctl` CLI: `model gpus` moves a one-card model to two cards of one node with a client
 * loop answered throughout, refuses a count no node has; `model resources` refuses cores no node
 * has and otherwise restarts the replica with the new memory and cores.
 *
 * The clock is frozen between moves, so the node hub's "lost" window is set far beyond the
 * moves; wall-clock waits are only for processes and sockets, polled with deadlines.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { alive, eventually, quickAgentFlags } from "../helpers/llmgw_process.ts";
import {
  clientLoop,
  quickClusterFlags,
  type ReplicaJson,
  startClusterControlPlane,
} from "../helpers/control_plane.ts";
import {
  buildStubNvml,
  stubNvmlUnavailable,
} from "../../agent/hardware/testdata/build_stub_nvml.ts";
import { skipNote } from "../helpers/skip.ts";
import { FakeClock } from "../../core/clock.ts";
import { selfCommand, selfCommandEnv } from "../../core/self_command.ts";

const min = 60_000;
const GiB = 1024 ** 3;

/** A GGUF header with no tensors, stretched (sparse) to `bytes`: its weights, to the estimate. */
async function sparseGguf(path: string, bytes: number): Promise<void> {
  const head = new Uint8Array(24);
  head.set(new TextEncoder().encode("GGUF"));
  new DataView(head.buffer).setUint32(4, 3, true); // version 3; no tensors, no metadata
  await Deno.writeFile(path, head);
  await Deno.truncate(path, bytes);
}

Deno.test({
  name:
    "models on a controllable clock: idle eviction after min life, taking turns, ctl gpus/resources" +
    skipNote(stubNvmlUnavailable),
  ignore: !!stubNvmlUnavailable,
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  const root = await Deno.makeTempDir({ prefix: "llmgw-models-clock-" });
  const stub = await buildStubNvml(root);
  const clock = new FakeClock(Date.now());
  const c = await startClusterControlPlane(root, {
    clock,
    flags: {
      ...quickClusterFlags,
      // The clock jumps minutes at a time; a node is lost only when its channel goes.
      "nodes-lost-after-ms": String(60 * min),
      "on-demand-evict-after-idle-ms": String(2 * min),
      "on-demand-min-lifetime-ms": String(5 * min),
      "on-demand-request-wait-ms": "60000",
      "engines-sim-tokens-per-second": "2000",
    },
  });
  const { admin, url, token, logs, replicas, addModel: add } = c;
  const reconciler = c.cp.deps.modelServices!.reconciler;
  /** The real CLI, as a child process. */
  const ctl = async (...args: string[]) => {
    const { cmd, args: full } = selfCommand(["ctl", ...args, "--url", url, "--token", token]);
    const out = await new Deno.Command(cmd, { args: full, env: selfCommandEnv() }).output();
    const dec = new TextDecoder();
    return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
  };
  const readyReplica = (model: string, timeoutMs = 30_000) => c.readyReplica(model, timeoutMs);
  /** Moves the clock, then runs a reconcile step that sees the new time. */
  const advance = async (ms: number) => {
    clock.advance(ms);
    await reconciler.step();
  };
  const enginePid = async (node: string, replicaId: string) =>
    await eventually(`the engine pid of ${replicaId}`, async () => {
      const n = (await admin("GET", `nodes/${node}`)).body as {
        replicas?: { replicaId: string; pid?: number }[];
      };
      return n.replicas?.find((s) => s.replicaId === replicaId)?.pid || undefined;
    });
  const replicaOf = (r: ReplicaJson) => r.id;

  try {
    const join = (name: string, labels: Record<string, string>, gpus: string) =>
      c.joinAgent(name, {
        labels,
        nvml: stub,
        args: [...quickAgentFlags],
        env: { STUB_NVML_GPUS: gpus },
      });
    await join("solo", { pool: "solo" }, "1");
    await join("duo", { pool: "duo" }, "2");
    const key = (await admin("POST", "keys", { name: "clock-test" })).body.key as string;
    await admin("PATCH", "limits/global/global", { rpm: 100_000, tpm: 100_000_000 });
    const chat = (model: string) => c.chat(key, model);
    const answered = async (model: string) => {
      const res = await chat(model);
      assertEquals(res.status, 200, await res.clone().text());
      assertEquals(res.headers.get("x-llmgw-served-model"), model);
      await res.body?.cancel();
    };
    await eventually("two nodes reporting cards", async () => {
      const nodes = (await admin("GET", "nodes")).body.data as {
        state: string;
        gpu?: unknown;
        engines?: unknown[];
      }[];
      return nodes.length === 2 && nodes.every((n) => n.state === "ready" && n.gpu && n.engines)
        ? nodes
        : undefined;
    }, 30_000);

    for (const name of ["od", "od2"]) {
      await sparseGguf(`${root}/${name}.gguf`, 12 * GiB);
      await add(`
name: ${name}
source: ${root}/${name}.gguf
on_demand: true
profiles: [{ engine: sim, gpus: 1, node_selector: { pool: solo } }]
`);
    }

    let odReplica = "";
    await t.step("evicted after idle, but not before its minimum life", async () => {
      await reconciler.step();
      assertEquals(await replicas("od"), [], "nothing runs before a request");
      await answered("od");
      const r = await readyReplica("od");
      assertEquals([r.node, r.gpus], ["solo", [0]]);
      odReplica = replicaOf(r);
      const pid = await enginePid("solo", odReplica);
      assert(alive(pid));

      await advance(3 * min); // idle 3 min ≥ 2 min, alive 3 min < 5 min
      await reconciler.step();
      const kept = await replicas("od");
      assertEquals(
        kept.map((x) => [x.id, x.state]),
        [[odReplica, "ready"]],
        "within its minimum life",
      );
      assert(alive(pid));

      await advance(3 * min); // alive 6 min: past both
      assertEquals(await replicas("od"), [], "stopped by the step that saw both windows over");
      await eventually(
        "the engine process gone",
        () => Promise.resolve(alive(pid) ? undefined : true),
      );
      assert(logs.some((l) => /idle for 360s \(on demand\)/.test(l)), "the log says why");
    });

    await t.step("a second on-demand model takes its turn on the full card", async () => {
      await answered("od");
      const first = await readyReplica("od");
      const pid = await enginePid("solo", replicaOf(first));
      await advance(4 * min);
      await answered("od"); // used just now: not idle, so only making room can stop it

      const second = chat("od2");
      const waiting = await eventually("od2 waiting for od's minimum life", () => {
        const note = reconciler.notes("od2").find((n) => /held by od within/.test(n.message));
        return Promise.resolve(note?.message);
      });
      assertMatch(waiting, /for 60s more/);
      assertEquals((await replicas("od")).map((x) => x.state), ["ready"]);
      assertEquals(await replicas("od2"), []);

      await advance(90_000); // od: alive 5.5 min (past its minimum life), idle 1.5 min (< 2 min)
      const res = await second;
      assertEquals(res.status, 200, await res.clone().text());
      assertEquals(res.headers.get("x-llmgw-served-model"), "od2");
      await res.body?.cancel();
      assertEquals(await replicas("od"), []);
      const r = await readyReplica("od2");
      assertEquals([r.node, r.gpus], ["solo", [0]]);
      await eventually("od's engine gone", () => Promise.resolve(alive(pid) ? undefined : true));
      assert(logs.some((l) => /makes room for od2 \(idle 90s\)/.test(l)), "the log says why");
    });

    await t.step("ctl model gpus: one card to two of one node, answering throughout", async () => {
      await add(`
name: wide
source: /models/wide.gguf
profiles: [{ engine: sim, gpus: 1, node_selector: { pool: duo } }]
`);
      const before = await readyReplica("wide");
      assertEquals([before.node, before.gpus.length], ["duo", 1]);
      const refused = await ctl("model", "gpus", "wide", "3");
      assertEquals(refused.code, 1, refused.stdout);
      assertMatch(refused.stderr, /no node has 3 cards \(the most on one node is 2\)/);

      const loop = clientLoop(() => chat("wide"));
      let seen: { answered: number; failures: string[] };
      try {
        const r = await ctl("model", "gpus", "wide", "2");
        assertEquals(r.code, 0, r.stderr);
        assertMatch(r.stdout, /Changed to 2 card\(s\) per replica; replicas restart one by one/);
        const after = await eventually("wide on two cards, the old replica gone", async () => {
          const now = await replicas("wide");
          return now.length === 1 && now[0]!.id !== before.id && now[0]!.state === "ready"
            ? now[0]
            : undefined;
        }, 30_000);
        assertEquals([after.node, after.gpus], ["duo", [0, 1]]);
      } finally {
        seen = await loop.stop();
      }
      assertEquals(seen.failures, []);
      assert(seen.answered > 0);
    });

    await t.step(
      "ctl model resources: refused cores no node has; otherwise restarted",
      async () => {
        const before = await readyReplica("wide");
        const refused = await ctl("model", "resources", "wide", "--cores", "4096");
        assertEquals(refused.code, 1, refused.stdout);
        assertMatch(refused.stderr, /no node has 4096 cores \(the most on one node is \d+\)/);
        await reconciler.step();
        assertEquals((await replicas("wide")).map((x) => x.id), [before.id], "nothing restarted");

        const r = await ctl("model", "resources", "wide", "--memory", "3", "--cores", "1");
        assertEquals(r.code, 0, r.stderr);
        assertMatch(r.stdout, /replicas restart one by one/);
        const after = await eventually("wide restarted with 3 GB and 1 core", async () => {
          const now = await replicas("wide");
          return now.length === 1 && now[0]!.id !== before.id && now[0]!.state === "ready"
            ? now[0]
            : undefined;
        }, 30_000);
        assertEquals([after.ramBytes, after.cores, after.gpus], [3 * GiB, 1, [0, 1]]);
        const listed = await ctl("replicas", "--model", "wide");
        assertEquals(listed.code, 0, listed.stderr);
        assertMatch(listed.stdout, /wide .* ready cards 0,1 {2}3\.0 GB, 1 core\(s\)/);
        await answered("wide");
      },
    );
  } finally {
    await c.close();
  }
});
