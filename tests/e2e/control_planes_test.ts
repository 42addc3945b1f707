/**
 * Three control planes (`llmgw server` processes, each its own data directory and ports) sharing
 * one store, a node (`llmgw join`) and a sim model: one control plane holds the leader lease and
 * the node's channel, `/leader` on every one says which, and each routes chats itself. Clients
 * spread over all three; the leader is killed with SIGKILL: a standby holds the lease within
 * `control.lease_ttl_ms` + 5 s, requests to the survivors never fail, the node moves to the new
 * leader with its engine untouched (same pid), and every answered request's usage row is there.
 *
 * Run on both stores. PostgreSQL (a throwaway cluster, tests/helpers/postgres.ts) is the cluster's
 * store: `init --store-url` seeds it and every control plane gets `--store-url`. The embedded
 * SQLite file is shared through a symlink in each data directory (SQLite follows it, so the WAL
 * and its lock are the one file's): several processes on one host. Either way the data
 * directories are copies of one `init`'s (one cluster CA and secret, one admin token), as three
 * machines of one cluster would hold.
 */
import { assert, assertEquals } from "../assert.ts";
import { count } from "drizzle-orm";
import { decodeJoinCode } from "../../core/protocol/join_code.ts";
import { usage } from "../../db/schema.ts";
import { openStore } from "../../db/store.ts";
import { freshDatabase, postgresMissing } from "../helpers/postgres.ts";
import { skipNote } from "../helpers/skip.ts";
import { adminJson, shortChat } from "../helpers/control_plane.ts";
import {
  eventually,
  type LlmgwProcess,
  loopbackListeners,
  quickAgentFlags,
  spawnLlmgw,
} from "../helpers/llmgw_process.ts";

const leaseTtlMs = 2_000;

const serverFlags = [
  "--portal",
  "false",
  "--control-lease-ttl-ms",
  String(leaseTtlMs),
  "--usage-flush-interval-ms",
  "50",
  "--nodes-heartbeat-ms",
  "300",
  "--nodes-lost-after-ms",
  "3000",
  "--nodes-channel-idle-ms",
  "1000",
  "--nodes-channel-answer-ms",
  "1000",
  "--reconciler-interval-ms",
  "300",
  "--engines-sim-tokens-per-second",
  "2000",
  "--on-demand-request-wait-ms",
  "15000",
];

const onDemandModel = `
name: later
source: /models/later.gguf
on_demand: true
profiles: [{ engine: sim, gpus: 0, memory_gb: 1, cores: 1 }]
`;

const simModel = `
name: shared
source: /models/shared.gguf
profiles: [{ engine: sim, gpus: 0, memory_gb: 1, cores: 1 }]
`;

interface LeaderJson {
  self: { id: string; leader: boolean; epoch: number };
  leader: { id: string; url: string; epoch: number } | null;
}

async function leaderOf(url: string): Promise<LeaderJson> {
  const res = await fetch(`${url}/leader`);
  assertEquals(res.status, 200);
  return await res.json();
}

/** Sends `send` again and again until stopped, counting answers and keeping what failed. */
function load(send: () => Promise<Response>) {
  let stopped = false;
  let answered = 0;
  const failures: string[] = [];
  const loop = (async () => {
    while (!stopped) {
      try {
        const res = await send();
        if (res.status !== 200) failures.push(`${res.status} ${await res.text()}`);
        else {
          await res.arrayBuffer();
          answered++;
        }
      } catch (e) {
        failures.push(String(e));
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return { answered, failures };
    },
  };
}

type StoreKind = "sqlite" | "postgres";

for (const kind of ["postgres", "sqlite"] as const) {
  const why = kind === "postgres" ? postgresMissing : undefined;
  Deno.test({
    name: `three control planes on one ${kind} store: all route, a standby takes over a killed ` +
      `leader, the node moves${skipNote(why)}`,
    ignore: !!why,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: () => threePlanesSurviveTheLeader(kind),
  });
}

async function threePlanesSurviveTheLeader(kind: StoreKind): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "llmgw-planes-" });
  const procs: LlmgwProcess[] = [];
  try {
    const { dirs, storeUrl } = await threeDataDirs(root, kind);
    const servers = dirs.map((dir, i) => {
      const p = spawnLlmgw(
        [
          "server",
          "--data",
          dir,
          ...loopbackListeners,
          ...serverFlags,
          "--control-id",
          `cp${i}`,
          ...(storeUrl ? ["--store-url", storeUrl] : []),
        ],
        {},
        `cp${i}`,
      );
      procs.push(p);
      return p;
    });
    const urls = await Promise.all(
      servers.map(async (s) => (await s.waitFor(/control plane on (http:\/\/\S+)/))[1]!),
    );
    const token = (await Deno.readTextFile(`${dirs[0]}/admin.token`)).trim();

    // One leader, and every control plane names the same one.
    const first = await eventually("one leader named by all three", async () => {
      const views = await Promise.all(urls.map(leaderOf));
      const ids = new Set(views.map((v) => v.leader?.id));
      const leading = views.filter((v) => v.self.leader);
      return ids.size === 1 && leading.length === 1 ? views[0]!.leader! : undefined;
    });
    const leaderIndex = Number(first.id.slice(2));
    assertEquals(first.url, urls[leaderIndex]);
    const leaderAdmin = adminJson(urls[leaderIndex]!, token);

    // The join code names every control plane; the node dials them until the leader keeps it.
    const made = (await leaderAdmin("POST", "nodes/join-codes", { labels: {} })).body;
    assertEquals(decodeJoinCode(made.code as string).urls.length, 3, "every control plane");
    const agent = spawnLlmgw(
      [
        "join",
        made.code as string,
        "--data",
        `${root}/node`,
        "--name",
        "node",
        "--gpu-nvml-library",
        `${root}/absent-libnvidia-ml.so.1`,
        "--gpu-nvidia-smi",
        `${root}/absent-nvidia-smi`,
        ...quickAgentFlags,
      ],
      {},
      "agent",
    );
    procs.push(agent);
    await agent.waitFor(/Joined as node node/);
    // Limits high enough for the load (a limit's own test is elsewhere).
    await leaderAdmin("PATCH", "limits/global/global", { rpm: 1_000_000, tpm: 1_000_000_000 });
    const added = await leaderAdmin("POST", "models", { yaml: simModel });
    assertEquals(added.status, 201, JSON.stringify(added.body));
    const pidBefore = await enginePid(leaderAdmin);

    // A key made on a standby works on every one (they share the store); each routes itself.
    const key = (await adminJson(urls[(leaderIndex + 1) % 3]!, token)("POST", "keys", {
      name: "spread",
    })).body.key as string;
    for (const url of urls) {
      await eventually(`a chat through ${url}`, async () => {
        const res = await shortChat(url, key, "shared");
        if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
        await res.body?.cancel();
        return true;
      });
    }
    const loads = urls.map((url) => load(() => shortChat(url, key, "shared")));
    await new Promise((r) => setTimeout(r, 1_000));

    const killedAt = Date.now();
    await servers[leaderIndex]!.kill("SIGKILL");
    const survivors = urls.filter((_, i) => i !== leaderIndex);
    const next = await eventually(
      "a standby holding the lease",
      async () => {
        const views = await Promise.all(survivors.map(leaderOf));
        const leading = views.filter((v) => v.self.leader);
        return leading.length === 1 && views.every((v) => v.leader?.id === leading[0]!.self.id)
          ? leading[0]!.self
          : undefined;
      },
      leaseTtlMs + 5_000,
      50,
    );
    const ledMs = Date.now() - killedAt;
    assertEquals(next.epoch, first.epoch + 1, "a takeover adds one to the epoch");
    const newAdmin = adminJson(urls[Number(next.id.slice(2))]!, token);

    // The node moves to the new leader, its engine untouched.
    const pidAfter = await eventually(
      "the node on the new leader",
      async () => {
        const nodes = (await newAdmin("GET", "nodes")).body.data as NodeJson[];
        const n = nodes.find((x) => x.name === "node" && x.state === "ready");
        return n?.replicas.find((s) => s.state === "ready")?.pid;
      },
      8_000 + leaseTtlMs,
      50,
    );
    const movedMs = Date.now() - killedAt;
    console.log(
      `after the leader's SIGKILL: a standby led in ${ledMs} ms (lease ${leaseTtlMs} ms), ` +
        `the node was back on it in ${movedMs} ms`,
    );
    assertEquals(pidAfter, pidBefore, "the engine was not restarted");
    await new Promise((r) => setTimeout(r, 1_000));

    const results = await Promise.all(loads.map((l) => l.stop()));
    let answered = 0;
    results.forEach((r, i) => {
      answered += r.answered;
      if (i === leaderIndex) return; // requests in flight on the killed one are the ones lost
      assertEquals(r.failures, [], `cp${i} failed requests`);
      assert(r.answered > 0, `cp${i} answered nothing`);
    });
    console.log(`answered: ${results.map((r, i) => `cp${i} ${r.answered}`).join(", ")}`);

    // Every answered request has its usage row, but those the killed one had not yet written.
    await new Promise((r) => setTimeout(r, 500));
    const store = await openStore(storeUrl ?? `${root}/store/llmgw.db`);
    try {
      const rows = (await store.db.select({ n: count() }).from(usage))[0]!.n;
      const survivorsAnswered = answered - results[leaderIndex]!.answered;
      assert(rows >= survivorsAnswered, `${rows} usage rows for ${answered} answered`);
    } finally {
      await store.close();
    }
    assertEquals(await enginePid(newAdmin), pidBefore);

    const standby = survivors.find((u) => u !== urls[Number(next.id.slice(2))])!;
    const revokedMs = await revokedElsewhereAfter(urls[Number(next.id.slice(2))]!, standby, token);
    console.log(`a key revoked on one control plane was refused on another in ${revokedMs} ms`);
    // PostgreSQL tells the others at once; SQLite's control planes read the counters every 1 s.
    assert(revokedMs < (kind === "postgres" ? 1_000 : 2_000), `${revokedMs} ms`);

    // Placement goes on: an on-demand model added on the standby, asked for there, is started
    // by the new leader and answered by the standby.
    const onDemand = await adminJson(standby, token)("POST", "models", { yaml: onDemandModel });
    assertEquals(onDemand.status, 201, JSON.stringify(onDemand.body));
    const res = await shortChat(standby, key, "later");
    assertEquals(res.status, 200, await res.clone().text());
    assertEquals(res.headers.get("x-llmgw-served-model"), "later");
    await res.body?.cancel();
  } finally {
    // SIGINT stops each agent's engines with it (SIGTERM would leave them for adoption).
    for (const p of procs) await p.kill("SIGINT").catch(() => {});
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
}

/**
 * A key made and revoked on `on`, after `other` has it in its cache (a chat answered there): how
 * long until `other` refuses it.
 */
async function revokedElsewhereAfter(on: string, other: string, token: string): Promise<number> {
  const made = (await adminJson(on, token)("POST", "keys", { name: "revoked" })).body;
  const first = await shortChat(other, made.key as string, "shared");
  assertEquals(first.status, 200, await first.clone().text());
  await first.body?.cancel();
  const revoked = await adminJson(on, token)("DELETE", `keys/${made.id}`);
  assertEquals(revoked.status, 200, JSON.stringify(revoked.body));
  const at = Date.now();
  await eventually(
    "the revoked key refused on another control plane",
    async () => {
      const res = await shortChat(other, made.key as string, "shared");
      await res.body?.cancel();
      return res.status === 401 || undefined;
    },
    15_000,
    20,
  );
  return Date.now() - at;
}

interface NodeJson {
  name: string;
  state: string;
  replicas: { replicaId: string; state: string; pid: number }[];
}

/** The pid of the one ready engine of the node, as the leader's admin API shows it. */
function enginePid(admin: ReturnType<typeof adminJson>): Promise<number> {
  return eventually("a ready engine on the node", async () => {
    const nodes = (await admin("GET", "nodes")).body.data as NodeJson[];
    return nodes.find((n) => n.name === "node")?.replicas.find((s) => s.state === "ready")?.pid;
  }, 30_000);
}

/**
 * One `init`, copied to three data directories: seeding a fresh PostgreSQL database they all
 * name, or with `llmgw.db` one shared file.
 */
async function threeDataDirs(
  root: string,
  kind: StoreKind,
): Promise<{ dirs: string[]; storeUrl?: string }> {
  const seed = `${root}/cp0`;
  const storeUrl = kind === "postgres" ? await freshDatabase() : undefined;
  const init = spawnLlmgw(
    ["init", "--data", seed, ...(storeUrl ? ["--store-url", storeUrl] : [])],
    {},
    "init",
  );
  assertEquals((await init.status).code, 0, init.output());
  const dirs = [seed, `${root}/cp1`, `${root}/cp2`];
  if (storeUrl) {
    for (const dir of dirs.slice(1)) await copyDir(seed, dir);
    return { dirs, storeUrl };
  }
  const store = `${root}/store`;
  await Deno.mkdir(store, { mode: 0o700 });
  await Deno.rename(`${seed}/llmgw.db`, `${store}/llmgw.db`);
  for (const suffix of ["-wal", "-shm"]) {
    await Deno.rename(`${seed}/llmgw.db${suffix}`, `${store}/llmgw.db${suffix}`).catch(() => {});
  }
  for (const dir of dirs.slice(1)) await copyDir(seed, dir);
  for (const dir of dirs) await Deno.symlink(`${store}/llmgw.db`, `${dir}/llmgw.db`);
  return { dirs };
}

async function copyDir(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { mode: 0o700 });
  for await (const e of Deno.readDir(from)) {
    if (e.isDirectory) await copyDir(`${from}/${e.name}`, `${to}/${e.name}`);
    else if (e.isFile) await Deno.copyFile(`${from}/${e.name}`, `${to}/${e.name}`);
  }
}
