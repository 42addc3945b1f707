/**
 * The client listener: HTTPS with the cluster's own certificate or with given files, Secure
 * cookies reported to the app, and plain HTTP refused on a non-loopback address unless allowed.
 */
import {
  assert,
  assertEquals,
  assertMatch,
  assertRejects,
  assertThrows,
} from "../../tests/assert.ts";
import { startTestControlPlane } from "../../tests/helpers/control_plane.ts";
import { clientTls, isLoopback, startClientListener } from "./client_listener.ts";
import { createLogger } from "../../core/log.ts";
import { loadServerConfig } from "./config.ts";
import { ConfigError } from "../../core/settings.ts";
import { tlsPaths } from "../tls/cluster_tls.ts";

Deno.test("https: true serves the API with the cluster CA's certificate; cookies are Secure", async () => {
  const t = await startTestControlPlane({ flags: { https: "true", listen: "localhost:0" } });
  const client = Deno.createHttpClient({ caCerts: [t.caPem] });
  try {
    assertMatch(t.cp.url, /^https:\/\/(localhost|127\.0\.0\.1):\d+$/);
    const csrf = await fetch(`${t.cp.url}/auth/csrf`, { client });
    await csrf.body?.cancel();
    assertMatch(csrf.headers.get("set-cookie") ?? "", /;\s*Secure/i);
    const res = await fetch(`${t.cp.url}/health`, { client });
    assertEquals(res.status, 200);
    await res.body?.cancel();
    // Without trusting the cluster CA the client refuses the connection.
    await assertRejects(() => fetch(`${t.cp.url}/health`));
  } finally {
    client.close();
    await t.close();
  }
});

Deno.test("tls.cert_file and tls.key_file are used when given; one alone is refused", async () => {
  const t = await startTestControlPlane();
  const paths = tlsPaths(t.dir);
  await t.close({ keepDir: true });
  const given = await startTestControlPlane({
    dir: t.dir,
    flags: { "tls-cert-file": paths.cert, "tls-key-file": paths.key, listen: "127.0.0.1:0" },
  });
  const client = Deno.createHttpClient({ caCerts: [given.caPem] });
  try {
    assert(given.cp.url.startsWith("https://"));
    const res = await fetch(`${given.cp.url}/health`, { client });
    assertEquals(res.status, 200);
    await res.body?.cancel();
    const half = await loadServerConfig({
      flags: { data: t.dir, "tls-cert-file": paths.cert },
      env: {},
    });
    await assertRejects(() => clientTls(half), ConfigError, "go together");
  } finally {
    client.close();
    await given.close();
  }
});

Deno.test("plain HTTP only on loopback unless allow_plain_http", async () => {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-plain-" });
  try {
    const open = await loadServerConfig({ flags: { data: dir, listen: "0.0.0.0:0" }, env: {} });
    await assertRejects(() => clientTls(open), ConfigError, "in the clear");
    const allowed = await loadServerConfig({
      flags: { data: dir, listen: "0.0.0.0:0", "allow-plain-http": "true" },
      env: {},
    });
    assertEquals(await clientTls(allowed), undefined);
    assert(isLoopback("127.0.0.1") && isLoopback("::1") && isLoopback("localhost"));
    assert(!isLoopback("10.0.0.1") && !isLoopback("0.0.0.0"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the app is told the peer's address and the client-gone signal with each request", async () => {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-peer-" });
  const config = await loadServerConfig({ flags: { data: dir, listen: "127.0.0.1:0" }, env: {} });
  const seen: { host?: string; cut?: boolean }[] = [];
  const listener = await startClientListener(
    config,
    (_req, env) => {
      seen.push({ host: env.remoteAddr.hostname, cut: env.clientGone.aborted });
      return new Response("ok");
    },
    createLogger({ sink: () => {} }),
    undefined,
  );
  try {
    const res = await fetch(`${listener.url}/x`);
    assertEquals(await res.text(), "ok");
    // Throttles of unknown keys and sign-ins are per address: never one shared "local".
    assertEquals(seen, [{ host: "127.0.0.1", cut: false }]);
  } finally {
    await listener.drain(1_000);
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("listener.proxy_protocol with HTTPS on the listener is refused: the header would come before the TLS handshake", async () => {
  const t = await startTestControlPlane();
  const paths = tlsPaths(t.dir);
  await t.close({ keepDir: true });
  try {
    const config = await loadServerConfig({
      flags: { data: t.dir, listen: "127.0.0.1:0", "listener-proxy-protocol": "required" },
      env: {},
    });
    const tls = {
      cert: await Deno.readTextFile(paths.cert),
      key: await Deno.readTextFile(paths.key),
    };
    assertThrows(
      () =>
        startClientListener(
          config,
          () => new Response("ok"),
          createLogger({ sink: () => {} }),
          tls,
        ),
      ConfigError,
      "needs a plain HTTP listener",
    );
  } finally {
    await Deno.remove(t.dir, { recursive: true });
  }
});

Deno.test("past the shutdown grace a request still open sees its client gone, and its answer still goes out", async () => {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-cut-" });
  const config = await loadServerConfig({ flags: { data: dir, listen: "127.0.0.1:0" }, env: {} });
  const arrived = Promise.withResolvers<void>();
  const listener = await startClientListener(
    config,
    async (_req, env) => {
      arrived.resolve();
      await new Promise((r) => env.clientGone.addEventListener("abort", r));
      return new Response(`cut: ${(env.clientGone.reason as Error).message}`);
    },
    createLogger({ sink: () => {} }),
    undefined,
  );
  try {
    const answer = fetch(`${listener.url}/wait`).then((r) => r.text());
    await arrived.promise;
    const started = performance.now();
    await listener.drain(100);
    // The cut, not the connections' close 5 s later, ended the request.
    assert(performance.now() - started < 2_000, "drained by the cut");
    assertEquals(await answer, "cut: control plane stopping");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
