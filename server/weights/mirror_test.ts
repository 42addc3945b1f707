import { assert, assertEquals } from "../../tests/assert.ts";
import { startHarness } from "../../tests/helpers/harness.ts";
import { sha256Hex } from "../../tests/helpers/fake_hf.ts";
import { silentLogger } from "../../core/log.ts";
import { FakeClock } from "../../core/clock.ts";
import { buildApp } from "../wiring/app.ts";
import { WeightsFetcher } from "../../core/weights/fetcher.ts";
import { sizeIfThere } from "../../core/weights/checksum_file.ts";
import { hubFixture, shard1, tinyFiles } from "../../tests/helpers/hub_fixture.ts";
import { generatedBytes } from "../../tests/helpers/fake_hf.ts";
import { startMirror } from "../wiring/start_mirror.ts";
import { mirrorCommand } from "../cli/mirror.ts";
import type { MirrorVersion } from "./mirror.ts";

async function withMirror(
  fn: (
    ctx: {
      fx: Awaited<ReturnType<typeof hubFixture>>;
      url: string;
      admin: Record<string, string>;
      adminToken: string;
      settled: (id: string) => Promise<MirrorVersion>;
    },
  ) => Promise<void>,
  opts: { freeBytes?: (dir: string) => Promise<number | null> } = {},
) {
  const fx = await hubFixture();
  const h = await startHarness();
  const mirror = await startMirror(
    { dataDir: fx.dir, hfEndpoint: fx.hub.url, hfTokenFile: "", mirrorDir: "" },
    { store: h.store, clock: h.clock, logger: silentLogger, ...opts },
  );
  const app = buildApp({ ...h.deps, mirror });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, app.fetch);
  try {
    await fn({
      fx,
      url: `http://127.0.0.1:${server.addr.port}`,
      adminToken: h.adminToken,
      admin: { authorization: `Bearer ${h.adminToken}`, "content-type": "application/json" },
      settled: (id) => mirror.settled(id),
    });
  } finally {
    await mirror.close();
    await server.shutdown();
    await h.close();
    await fx.close();
  }
}

Deno.test("the mirror serves a node that has no route to the hub", async () => {
  await withMirror(async ({ fx, url, admin, adminToken, settled }) => {
    const res = await fetch(`${url}/api/v1/mirror`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ source: "hf:acme/tiny" }),
    });
    assertEquals(res.status, 202);
    const added = await res.json() as MirrorVersion;
    assertEquals(added.versionDir, `acme/tiny/${fx.commit}`);
    const done = await settled(added.id);
    assertEquals(done.status, "complete", done.error ?? "");
    assert(await sizeIfThere(`${fx.dir}/mirror/acme/tiny/${fx.commit}/${shard1}`));

    // A node with only the mirror's address: no hub configured at all.
    const hubRequests = fx.hub.requests.length;
    const node = new WeightsFetcher({
      fetch,
      clock: new FakeClock(),
      logger: silentLogger,
      weightsDir: `${fx.dir}/airgapped`,
      mirrorToken: adminToken,
      sleep: () => Promise.resolve(),
    });
    const r = await node.ensure(done.pinned, { mirrors: [url] });
    assertEquals(r.outcome, "downloaded");
    assertEquals(
      sha256Hex(await Deno.readFile(`${r.path}/${shard1}`)),
      sha256Hex(tinyFiles()[shard1]!),
    );
    assertEquals(fx.hub.requests.length, hubRequests, "the node never asked the hub");

    // Adding it again changes nothing.
    const again = await fetch(`${url}/api/v1/mirror`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ source: "hf:acme/tiny" }),
    });
    assertEquals(again.status, 200);
    assertEquals((await again.json()).id, added.id);
  });
});

Deno.test("the mirror serves ranges, only to a credential, only files of complete versions", async () => {
  await withMirror(async ({ fx, url, admin, settled }) => {
    const added = await (await fetch(`${url}/api/v1/mirror`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ source: `hf:acme/tiny/${shard1}` }),
    })).json() as MirrorVersion;
    assertEquals((await settled(added.id)).status, "complete");
    const file = `${url}/mirror/acme/tiny/${fx.commit}/${shard1}`;
    const ranged = await fetch(file, { headers: { ...admin, range: "bytes=100-199" } });
    assertEquals(ranged.status, 206);
    assertEquals(ranged.headers.get("content-range"), `bytes 100-199/1500000`);
    assertEquals(new Uint8Array(await ranged.arrayBuffer()), tinyFiles()[shard1]!.slice(100, 200));
    const tail = await fetch(file, { headers: { ...admin, range: "bytes=1499990-" } });
    assertEquals((await tail.arrayBuffer()).byteLength, 10);
    const past = await fetch(file, { headers: { ...admin, range: "bytes=1500000-" } });
    await past.body?.cancel();
    assertEquals(past.status, 416);
    const anon = await fetch(file);
    await anon.body?.cancel();
    assertEquals(anon.status, 401);
    for (
      const bad of [
        `acme/tiny/${fx.commit}/config.json`,
        `acme/tiny/${fx.commit}/..%2F..%2Fllmgw.db`,
      ]
    ) {
      const r = await fetch(`${url}/mirror/${bad}`, { headers: admin });
      await r.body?.cancel();
      assertEquals(r.status, 404, bad);
    }
  });
});

Deno.test("a new commit is a new mirror version; removing one keeps the other", async () => {
  await withMirror(async ({ fx, url, admin, settled }) => {
    const add = async () =>
      await (await fetch(`${url}/api/v1/mirror`, {
        method: "POST",
        headers: admin,
        body: JSON.stringify({ source: `hf:acme/tiny/${shard1}` }),
      })).json() as MirrorVersion;
    const v1 = await add();
    await settled(v1.id);
    const newer = tinyFiles();
    newer[shard1] = generatedBytes(1_200_000, 9);
    const commit2 = fx.hub.putRepo("acme/tiny", newer);
    const v2 = await add();
    assert(v2.id !== v1.id);
    assertEquals((await settled(v2.id)).status, "complete");
    const old = `${fx.dir}/mirror/acme/tiny/${fx.commit}/${shard1}`;
    assertEquals(sha256Hex(await Deno.readFile(old)), sha256Hex(tinyFiles()[shard1]!));
    const list = (await (await fetch(`${url}/api/v1/mirror`, { headers: admin })).json()).data;
    assertEquals(list.map((v: MirrorVersion) => v.versionDir), [
      `acme/tiny/${fx.commit}`,
      `acme/tiny/${commit2}`,
    ]);
    const del = await fetch(`${url}/api/v1/mirror/${v1.id}`, { method: "DELETE", headers: admin });
    assertEquals(del.status, 200);
    assertEquals(await sizeIfThere(old), null);
    assert(await sizeIfThere(`${fx.dir}/mirror/acme/tiny/${commit2}/${shard1}`));
    const gone = await fetch(`${url}/mirror/acme/tiny/${fx.commit}/${shard1}`, { headers: admin });
    await gone.body?.cancel();
    assertEquals(gone.status, 404);
  });
});

Deno.test("a mirror version whose bytes differ from the pinned sums fails, naming both", async () => {
  await withMirror(async ({ fx, url, admin, settled }) => {
    const pinnedBytes = tinyFiles()[shard1]!;
    const tampered = pinnedBytes.slice();
    tampered[0] = tampered[0]! ^ 1;
    // The tree still publishes the original sum; the CDN serves other bytes under that commit.
    fx.hub.setFile("acme/tiny", shard1, tampered);
    const res = await fetch(`${url}/api/v1/mirror`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ source: `hf:acme/tiny/${shard1}` }),
    });
    const v = await settled((await res.json()).id);
    assertEquals(v.status, "failed");
    assert(v.error!.includes(sha256Hex(tampered)) && v.error!.includes(sha256Hex(pinnedBytes)));
    assertEquals(await sizeIfThere(`${fx.dir}/mirror/acme/tiny/${fx.commit}/${shard1}`), null);
    const bad = await fetch(`${url}/api/v1/mirror`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ source: "https://example.com/model.gguf?x=1" }),
    });
    assertEquals(bad.status, 400);
    const body = await bad.json();
    assertEquals(body.error.code, "weights_source_invalid");
    assert(!body.error.message.includes("x=1"));
  });
});

Deno.test("llmgw mirror add/list/remove drive the admin API", async () => {
  await withMirror(async ({ fx, url, adminToken }) => {
    const out: string[] = [];
    const log = console.log;
    console.log = (...a: unknown[]) => out.push(a.join(" "));
    try {
      const conn = ["--url", url, "--token", adminToken];
      assertEquals(
        await mirrorCommand.run(["add", `hf:acme/tiny/${shard1}`, "--wait", "--json", ...conn]),
        0,
      );
      const added = JSON.parse(out.join("\n")) as MirrorVersion;
      assertEquals(added.status, "complete");
      out.length = 0;
      assertEquals(await mirrorCommand.run(["list", ...conn]), 0);
      assert(
        out.some((l) => l.includes(`acme/tiny/${fx.commit}`) && l.includes("complete")),
        out.join("\n"),
      );
      assertEquals(await mirrorCommand.run(["remove", added.id, ...conn]), 0);
      assertEquals(await mirrorCommand.run(["--help"]), 0);
    } finally {
      console.log = log;
    }
  });
});

Deno.test("a version that does not fit the mirror's disk is refused at once, with the figures", async () => {
  await withMirror(async ({ url, admin }) => {
    const res = await fetch(`${url}/api/v1/mirror`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ source: "hf:acme/tiny" }),
    });
    assertEquals(res.status, 507);
    const body = await res.json();
    assertEquals(body.error.code, "weights_no_space");
    // 2.5 MB of shards plus the small files, against 1 MiB free.
    assert(
      /needs 2\.\d MiB more on .*mirror, but only 1\.0 MiB is free/.test(body.error.message),
      body.error.message,
    );
    const list = await (await fetch(`${url}/api/v1/mirror`, { headers: admin })).json();
    assertEquals(list.data, [], "nothing was queued");
  }, { freeBytes: () => Promise.resolve(1024 * 1024) });
});
