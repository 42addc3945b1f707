/**
 * Three control planes (`llmgw server` processes, each its own data directory and ports) sharing
 * one store: one holds the leader lease and `/leader` on every one says which; clients spread
 * over all three; the leader is killed with SIGKILL and a standby holds the lease within
 * `control.lease_ttl_ms` + 5 s, while requests to the survivors never fail.
 *
 * The store is the embedded SQLite file, shared through a symlink in each data directory (SQLite
 * follows it, so the WAL and its lock are the one file's): several processes on one host. The
 * data directories are copies of one `init`'s (one cluster CA and secret, one admin token), as
 * three machines of one cluster would hold.
 */
import { assert, assertEquals } from "../assert.ts";
import { adminJson } from "../helpers/control_plane.ts";
import {
  eventually,
  type LlmgwProcess,
  loopbackListeners,
  spawnLlmgw,
} from "../helpers/llmgw_process.ts";

const leaseTtlMs = 2_000;

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
        if (res.status === 200) answered++;
        else failures.push(`${res.status} ${await res.text()}`);
        await res.body?.cancel();
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

Deno.test({
  name: "three control planes on one store: one leads, a standby takes over a killed leader",
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const root = await Deno.makeTempDir({ prefix: "llmgw-planes-" });
  const procs: LlmgwProcess[] = [];
  try {
    const dirs = await threeDataDirs(root);
    const servers = dirs.map((dir, i) => {
      const p = spawnLlmgw(
        [
          "server",
          "--data",
          dir,
          ...loopbackListeners,
          "--portal",
          "false",
          "--control-id",
          `cp${i}`,
          "--control-lease-ttl-ms",
          String(leaseTtlMs),
          "--usage-flush-interval-ms",
          "50",
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

    // A key made on one control plane works on every one (they share the store).
    const admin = adminJson(urls[(leaderIndex + 1) % 3]!, token);
    const made = await admin("POST", "keys", { name: "spread" });
    assertEquals(made.status, 201, JSON.stringify(made.body));
    const key = made.body.key as string;
    const loads = urls.map((url) =>
      load(() => fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${key}` } }))
    );
    await new Promise((r) => setTimeout(r, 500));

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
    const tookMs = Date.now() - killedAt;
    console.log(`a standby led ${tookMs} ms after the leader was killed (lease ${leaseTtlMs} ms)`);
    assert(tookMs <= leaseTtlMs + 5_000, `took ${tookMs} ms`);
    assertEquals(next.epoch, first.epoch + 1, "a takeover adds one to the epoch");
    await new Promise((r) => setTimeout(r, 500));

    const results = await Promise.all(loads.map((l) => l.stop()));
    results.forEach((r, i) => {
      if (i === leaderIndex) return; // requests to the killed one are the ones lost
      assertEquals(r.failures, [], `cp${i} failed requests`);
      assert(r.answered > 0, `cp${i} answered nothing`);
    });
  } finally {
    for (const p of procs) await p.kill("SIGTERM").catch(() => {});
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
});

/** One `init`, copied to three data directories whose `llmgw.db` is one shared file. */
async function threeDataDirs(root: string): Promise<string[]> {
  const seed = `${root}/cp0`;
  const init = spawnLlmgw(["init", "--data", seed], {}, "init");
  assertEquals((await init.status).code, 0, init.output());
  const store = `${root}/store`;
  await Deno.mkdir(store, { mode: 0o700 });
  await Deno.rename(`${seed}/llmgw.db`, `${store}/llmgw.db`);
  for (const suffix of ["-wal", "-shm"]) {
    await Deno.rename(`${seed}/llmgw.db${suffix}`, `${store}/llmgw.db${suffix}`).catch(() => {});
  }
  const dirs = [seed, `${root}/cp1`, `${root}/cp2`];
  for (const dir of dirs.slice(1)) await copyDir(seed, dir);
  for (const dir of dirs) await Deno.symlink(`${store}/llmgw.db`, `${dir}/llmgw.db`);
  return dirs;
}

async function copyDir(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { mode: 0o700 });
  for await (const e of Deno.readDir(from)) {
    if (e.isDirectory) await copyDir(`${from}/${e.name}`, `${to}/${e.name}`);
    else if (e.isFile) await Deno.copyFile(`${from}/${e.name}`, `${to}/${e.name}`);
  }
}
