/**
 * The mirror on the cluster listener: a real control plane whose mirror holds a version fetched
 * from the fake hub, and a node's credential from a real join, read over the cluster's TLS.
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { startTestControlPlane } from "../../tests/helpers/control_plane.ts";
import { sha256Hex } from "../../tests/helpers/fake_hf.ts";
import { silentLogger } from "../../core/log.ts";
import { FakeClock } from "../../core/clock.ts";
import { decodeJoinCode } from "../../core/protocol/join_code.ts";
import { hubFixture, shard1, tinyFiles } from "../../tests/helpers/hub_fixture.ts";
import { WeightsFetcher } from "../../core/weights/fetcher.ts";
import { clusterMirrors } from "../../core/weights/cluster_mirrors.ts";
import { AppError } from "../../core/errors.ts";

async function withClusterMirror(
  fn: (ctx: {
    base: string;
    client: Deno.HttpClient;
    credential: string;
    nodeId: string;
    commit: string;
    hubRequests: () => number;
    removeNode: (id: string) => Promise<unknown>;
  }) => Promise<void>,
) {
  const fx = await hubFixture();
  const t = await startTestControlPlane({ flags: { "weights-hf-endpoint": fx.hub.url } });
  const client = Deno.createHttpClient({ caCerts: [t.caPem] });
  try {
    const mirror = t.cp.deps.mirror!;
    const added = await mirror.add({ source: `hf:acme/tiny/${shard1}` });
    const done = await mirror.settled(added.id);
    assertEquals(done.status, "complete", done.error ?? "");
    const base = t.cp.clusterUrls![0]!;
    // Joined as a node joins: the code's secret, over the cluster's TLS.
    const { code } = await t.cp.deps.nodes!.joinCodes.create({ labels: {}, ttlMs: 60_000 });
    const joined = await fetch(`${base}/cluster/v1/join`, {
      method: "POST",
      client,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ secret: decodeJoinCode(code).secret, name: "n1" }),
    });
    assertEquals(joined.status, 201);
    const { credential, nodeId } = await joined.json();
    await fn({
      base,
      client,
      credential,
      nodeId,
      commit: fx.commit,
      hubRequests: () => fx.hub.requests.length,
      removeNode: (id) => t.cp.deps.nodes!.hub.remove(id),
    });
  } finally {
    client.close();
    await t.close();
    await fx.close();
  }
}

Deno.test("the cluster listener serves mirrored files to a node credential, with Range, nothing else", async () => {
  await withClusterMirror(async ({ base, client, credential, nodeId, commit, removeNode }) => {
    const file = `${base}/cluster/v1/mirror/acme/tiny/${commit}/${shard1}`;
    const auth = { authorization: `Bearer ${credential}` };
    const bytes = tinyFiles()[shard1]!;

    const ranged = await fetch(file, { client, headers: { ...auth, range: "bytes=100-199" } });
    assertEquals(ranged.status, 206);
    assertEquals(ranged.headers.get("content-range"), `bytes 100-199/${bytes.length}`);
    assertEquals(new Uint8Array(await ranged.arrayBuffer()), bytes.slice(100, 200));
    const whole = await fetch(file, { client, headers: auth });
    assertEquals(whole.status, 200);
    assertEquals(sha256Hex(new Uint8Array(await whole.arrayBuffer())), sha256Hex(bytes));
    const head = await fetch(file, { client, method: "HEAD", headers: auth });
    assertEquals(head.status, 200);
    assertEquals(head.headers.get("content-length"), String(bytes.length));

    for (
      const bad of [
        `acme/tiny/${commit}/..%2F..%2F..%2Fllmgw.db`,
        `acme/tiny/${commit}/../../../llmgw.db`,
        `acme/tiny/${"0".repeat(40)}/${shard1}`,
        `acme/tiny/${commit}/config.json`,
      ]
    ) {
      const r = await fetch(`${base}/cluster/v1/mirror/${bad}`, { client, headers: auth });
      assertEquals(r.status, 404, bad);
      assertEquals((await r.json()).error.code, "not_found", bad);
    }

    const anon = await fetch(file, { client });
    assertEquals(anon.status, 401);
    assertEquals((await anon.json()).error.code, "node_credential_invalid");
    await removeNode(nodeId);
    const revoked = await fetch(file, { client, headers: auth });
    assertEquals(revoked.status, 401);
    assertEquals((await revoked.json()).error.code, "node_credential_invalid");
  });
});

Deno.test("a node's fetcher reads its control plane's mirror, and names every place that failed", async () => {
  await withClusterMirror(async ({ base, client, credential, commit, hubRequests }) => {
    const dir = await Deno.makeTempDir({ prefix: "llmgw-node-weights-" });
    try {
      const node = new WeightsFetcher({
        fetch,
        clock: new FakeClock(),
        logger: silentLogger,
        weightsDir: dir,
        mirrorToken: credential,
        mirrorFetch: (input, init) => fetch(input, { ...init, client }),
        sleep: () => Promise.resolve(),
      });
      const pinned = {
        kind: "hf" as const,
        repo: "acme/tiny",
        commit,
        files: [{
          path: shard1,
          size: tinyFiles()[shard1]!.length,
          sha256: sha256Hex(tinyFiles()[shard1]!),
        }],
        entry: shard1,
      };
      const seen = hubRequests();
      const r = await node.ensure(pinned, { mirrors: clusterMirrors([base]) });
      assertEquals(r.outcome, "downloaded");
      assertEquals(sha256Hex(await Deno.readFile(r.path)), pinned.files[0]!.sha256);
      assertEquals(hubRequests(), seen, "the node never asked the hub");

      // A version the mirror does not hold, on a node with an unreachable hub: refused at once
      // (a 404 is not retried), naming both places and never the credential.
      const started = Date.now();
      const missing = { ...pinned, commit: "1".repeat(40) };
      const hubless = new WeightsFetcher({
        fetch,
        clock: new FakeClock(),
        logger: silentLogger,
        weightsDir: dir,
        hub: { endpoint: "http://127.0.0.1:9/hub" },
        mirrorToken: credential,
        mirrorFetch: (input, init) => fetch(input, { ...init, client }),
        tries: 2,
        backoffBaseMs: 1,
        sleep: () => Promise.resolve(),
      });
      let err: unknown;
      try {
        await hubless.ensure(missing, { mirrors: clusterMirrors([base]) });
      } catch (e) {
        err = e;
      }
      assert(err instanceof AppError && err.code === "weights_fetch_failed", String(err));
      const text = (err as AppError).message;
      assert(text.includes(`mirror ${base}: HTTP 404`), text);
      assert(text.includes("http://127.0.0.1:9:"), text);
      assert(!text.includes(credential), text);
      assert(Date.now() - started < 10_000);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});
