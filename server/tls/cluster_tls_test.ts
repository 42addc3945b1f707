import { assert, assertEquals } from "../../tests/assert.ts";
import { ensureClusterTls, loadClusterTls, tlsPaths } from "./cluster_tls.ts";

Deno.test("cluster TLS: a CA and a server certificate, keys 0600, created once", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const made = await ensureClusterTls(dir, ["localhost", "127.0.0.1"]);
    assertEquals(made.length, 4);
    const p = tlsPaths(dir);
    assertEquals((await Deno.stat(p.caKey)).mode! & 0o777, 0o600);
    assertEquals((await Deno.stat(p.key)).mode! & 0o777, 0o600);
    const before = await loadClusterTls(dir);
    assertEquals(await ensureClusterTls(dir, ["other"]), []);
    const after = await loadClusterTls(dir);
    assertEquals(after.caFingerprint, before.caFingerprint);
    assertEquals(after.keyPem, before.keyPem);

    // A TLS listener with it is trusted by a client that trusts the CA, and only by such a one.
    const server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      cert: after.certChainPem,
      key: after.keyPem,
      onListen() {},
    }, () => new Response("ok"));
    const client = Deno.createHttpClient({ caCerts: [after.caPem] });
    try {
      const url = `https://127.0.0.1:${server.addr.port}/`;
      assertEquals(await (await fetch(url, { client })).text(), "ok");
      let refused = false;
      await fetch(url).catch(() => refused = true);
      assert(refused, "a client without the cluster CA must refuse the certificate");
    } finally {
      client.close();
      await server.shutdown();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
