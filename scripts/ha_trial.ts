/**
 * What clients see when the store's primary is lost: two control planes (`llmgw server`
 * processes) on a PostgreSQL store (a Patroni cluster, deploy/ha/), a node and a sim model,
 * clients sending to both; after `--kill-after` seconds `--kill` runs (a shell command that kills
 * the primary). Prints what every client saw: answers, failures by kind with when they came,
 * the longest wait between two answers, and whether every answered request has its usage row.
 *
 *   PGPASSWORD=… deno run -A scripts/ha_trial.ts --store-url postgres://postgres@h1,h2,h3/llmgw \
 *     --kill "sh -c '…'" [--kill-after 8] [--duration 45] [--clients 4]
 *
 * With `--bench` instead of `--kill`: the same closed-loop load as `llmgw bench` goes to the
 * leader and to the standby in turns (streams and plain answers at a few concurrencies), and the
 * latencies through each are printed side by side: what routing on a standby adds.
 *
 * The password comes from PGPASSWORD (postgres.js reads it), never from argv.
 */
import { parseArgs } from "node:util";
import { count } from "drizzle-orm";
import { decodeJoinCode } from "../core/protocol/join_code.ts";
import { usage } from "../db/schema.ts";
import { openStore } from "../db/store.ts";
import { errorCount, mergeResults, runLoad } from "../bench/load.ts";
import { adminJson, shortChat } from "../tests/helpers/control_plane.ts";
import {
  eventually,
  type LlmgwProcess,
  loopbackListeners,
  quickAgentFlags,
  spawnLlmgw,
} from "../tests/helpers/llmgw_process.ts";

const { values } = parseArgs({
  options: {
    "store-url": { type: "string" },
    kill: { type: "string" },
    "kill-after": { type: "string", default: "8" },
    duration: { type: "string", default: "45" },
    clients: { type: "string", default: "4" },
    bench: { type: "boolean", default: false },
  },
});
const storeUrl = values["store-url"]!;
const simModel = `
name: shared
source: /models/shared.gguf
profiles: [{ engine: sim, gpus: 0, memory_gb: 1, cores: 1 }]
`;

interface Seen {
  at: number;
  ms: number;
  ok: boolean;
  what: string;
}

const root = await Deno.makeTempDir({ prefix: "llmgw-ha-trial-" });
const procs: LlmgwProcess[] = [];
try {
  const init = spawnLlmgw(["init", "--data", `${root}/cp0`, "--store-url", storeUrl], {
    PGPASSWORD: Deno.env.get("PGPASSWORD") ?? "",
  }, "init");
  if ((await init.status).code !== 0) throw new Error(init.output());
  await copyDir(`${root}/cp0`, `${root}/cp1`);
  const env = { PGPASSWORD: Deno.env.get("PGPASSWORD") ?? "" };
  const urls = await Promise.all([0, 1].map(async (i) => {
    const p = spawnLlmgw(
      [
        "server",
        "--data",
        `${root}/cp${i}`,
        ...loopbackListeners,
        "--portal",
        "false",
        "--store-url",
        storeUrl,
        "--control-id",
        `cp${i}`,
        "--control-lease-ttl-ms",
        "10000",
        "--engines-sim-tokens-per-second",
        "2000",
      ],
      env,
      `cp${i}`,
    );
    procs.push(p);
    return (await p.waitFor(/control plane on (http:\/\/\S+)/))[1]!;
  }));
  const token = (await Deno.readTextFile(`${root}/cp0/admin.token`)).trim();
  const leaderUrl = await eventually("a leader", async () => {
    const v = await (await fetch(`${urls[0]}/leader`)).json();
    return v.leader?.url as string | undefined;
  });
  const admin = adminJson(leaderUrl, token);
  const made = (await admin("POST", "nodes/join-codes", { labels: {} })).body;
  if (decodeJoinCode(made.code).urls.length < 2) throw new Error("the join code names one plane");
  const agent = spawnLlmgw(
    [
      "join",
      made.code,
      "--data",
      `${root}/node`,
      "--name",
      "node",
      "--gpu-nvml-library",
      `${root}/absent`,
      "--gpu-nvidia-smi",
      `${root}/absent`,
      ...quickAgentFlags,
    ],
    {},
    "agent",
  );
  procs.push(agent);
  await agent.waitFor(/Joined as node node/);
  await admin("PATCH", "limits/global/global", { rpm: 1_000_000, tpm: 1_000_000_000 });
  await admin("POST", "models", { yaml: simModel });
  const key = (await admin("POST", "keys", { name: "trial" })).body.key as string;
  for (const url of urls) {
    await eventually(`a chat through ${url}`, async () => {
      const res = await shortChat(url, key, "shared");
      await res.body?.cancel();
      return res.status === 200 || undefined;
    }, 60_000);
  }

  // The bench instead of the failover; the `finally` below stops every process either way.
  if (values.bench) await leaderAgainstStandby(leaderUrl, urls.find((u) => u !== leaderUrl)!, key);
  else await failover(urls, key);
} finally {
  for (const p of procs) await p.kill("SIGTERM").catch(() => {});
  const logs = Deno.env.get("HA_TRIAL_LOGS");
  if (logs) {
    await Deno.mkdir(logs, { recursive: true });
    for (const [i, p] of procs.entries()) await Deno.writeTextFile(`${logs}/${i}.log`, p.output());
  }
  await Deno.remove(root, { recursive: true }).catch(() => {});
}

/** Clients on every control plane through the `--kill`, then what each saw. */
async function failover(urls: string[], key: string): Promise<void> {
  const seen: Seen[][] = urls.map(() => []);
  const start = performance.now();
  const end = start + Number(values.duration) * 1000;
  const clients = Number(values.clients);
  const loops = Array.from({ length: clients }, async (_, c) => {
    const i = c % urls.length;
    while (performance.now() < end) {
      const t0 = performance.now();
      let ok = false;
      let what = "200";
      try {
        const res = await shortChat(urls[i]!, key, "shared");
        const text = await res.text();
        ok = res.status === 200;
        if (!ok) what = `${res.status} ${text.slice(0, 120)}`;
      } catch (e) {
        what = `error ${(e as Error).message.slice(0, 120)}`;
      }
      seen[i]!.push({ at: (t0 - start) / 1000, ms: performance.now() - t0, ok, what });
      if (!ok) await new Promise((r) => setTimeout(r, 50));
    }
  });
  const killAt = Number(values["kill-after"]) * 1000;
  const killed = (async () => {
    await new Promise((r) => setTimeout(r, killAt));
    console.log(`t=${(performance.now() - start) / 1000}s: ${values.kill}`);
    const out = await new Deno.Command("sh", { args: ["-c", values.kill!] }).output();
    console.log(new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr));
  })();
  await Promise.all([...loops, killed]);

  let answered = 0;
  for (const [i, rows] of seen.entries()) {
    const ok = rows.filter((r) => r.ok);
    answered += ok.length;
    const failed = rows.filter((r) => !r.ok);
    const kinds = new Map<string, number>();
    for (const f of failed) kinds.set(f.what, (kinds.get(f.what) ?? 0) + 1);
    let gap = 0;
    let gapAt = 0;
    for (let j = 1; j < ok.length; j++) {
      const g = ok[j]!.at + ok[j]!.ms / 1000 - (ok[j - 1]!.at + ok[j - 1]!.ms / 1000);
      if (g > gap) gap = g, gapAt = ok[j - 1]!.at;
    }
    const slow = rows.reduce((m, r) => Math.max(m, r.ms), 0);
    console.log(
      `cp${i}: ${ok.length} answered, ${failed.length} failed; longest wait between answers ` +
        `${gap.toFixed(2)} s (from t=${gapAt.toFixed(1)} s); slowest request ${slow.toFixed(0)} ms`,
    );
    for (const [what, n] of kinds) console.log(`  ${n} x ${what}`);
    for (const r of rows.filter((r) => r.ms > 2_000)) {
      console.log(`  slow: sent at t=${r.at.toFixed(1)} s, ${r.ms.toFixed(0)} ms, ${r.what}`);
    }
    if (failed.length) {
      console.log(
        `  failures from t=${failed[0]!.at.toFixed(1)} s to t=${failed.at(-1)!.at.toFixed(1)} s`,
      );
    }
  }
  // Usage is written in batches: give the last one time to land.
  await new Promise((r) => setTimeout(r, 3_000));
  const store = await openStore(storeUrl);
  try {
    const rows = (await store.db.select({ n: count() }).from(usage))[0]!.n;
    // The warm-up chats are answered too: one per control plane at least.
    console.log(`usage rows ${rows} for ${answered} answered under load (+ warm-up chats)`);
  } finally {
    await store.close();
  }
}

/** The same load through the leader and the standby, in turns, at each level. */
async function leaderAgainstStandby(leader: string, standby: string, key: string) {
  for (const stream of [false, true]) {
    for (const concurrency of [1, 8, 32]) {
      const base = {
        key,
        model: "shared",
        concurrency,
        stream,
        maxTokens: stream ? 64 : 16,
        promptTokens: 32,
        timeoutMs: 60_000,
        streamUsage: false,
      };
      type Run = Awaited<ReturnType<typeof runLoad>>;
      const legs: Record<"leader" | "standby", Run[]> = { leader: [], standby: [] };
      // Warm-up, not counted: connections open, code warm on both.
      for (const url of [leader, standby]) {
        await runLoad({ ...base, url: `${url}/v1`, durationMs: 1_000 });
      }
      for (let round = 0; round < 3; round++) {
        legs.leader.push(await runLoad({ ...base, url: `${leader}/v1`, durationMs: 2_000 }));
        legs.standby.push(await runLoad({ ...base, url: `${standby}/v1`, durationMs: 2_000 }));
      }
      const line = (name: "leader" | "standby") => {
        const r = mergeResults(legs[name]);
        const errors = errorCount(r);
        return `${name} p50 ${r.latencyMs?.p50.toFixed(1)} ms, p99 ${
          r.latencyMs?.p99.toFixed(1)
        } ms${stream ? `, ttft p50 ${r.ttftMs?.p50.toFixed(1)} ms` : ""}, ${
          r.requestsPerSecond.toFixed(0)
        } req/s, ${errors} errors`;
      };
      console.log(
        `${stream ? "stream" : "plain"} c=${concurrency}: ${line("leader")} | ${line("standby")}`,
      );
    }
  }
}

async function copyDir(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { mode: 0o700 });
  for await (const e of Deno.readDir(from)) {
    if (e.isDirectory) await copyDir(`${from}/${e.name}`, `${to}/${e.name}`);
    else if (e.isFile) await Deno.copyFile(`${from}/${e.name}`, `${to}/${e.name}`);
  }
}
