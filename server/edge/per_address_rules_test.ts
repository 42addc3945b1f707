/**
 * Every per-address rule takes the client from the listener: behind a trusted proxy the address
 * its X-Forwarded-For names, else the connection's peer. One client's bad keys throttle that
 * client, not everyone behind the same proxy; an untrusted sender's header changes nothing.
 */
import { assert, assertEquals, assertMatch } from "../../tests/assert.ts";
import { startTestControlPlane } from "../../tests/helpers/control_plane.ts";
import { get, RawClient } from "../../tests/helpers/raw_http.ts";

Deno.test("per-address rules: unknown keys are throttled per forwarded client behind a trusted proxy; the access log names it", async () => {
  const t = await startTestControlPlane({ flags: { "trusted-proxies": "127.0.0.4" } });
  const port = Number(new URL(t.cp.url).port);
  const badKey = async (from: string, forwardedFor: string) => {
    const c = await RawClient.connectFrom(port, from);
    try {
      await c.send(get("/v1/models", {
        authorization: "Bearer sk-llmgw-not-a-key",
        "x-forwarded-for": forwardedFor,
      }));
      return (await c.answer())?.status;
    } finally {
      c.close();
    }
  };
  try {
    const statuses: (number | undefined)[] = [];
    for (let i = 0; i < 35; i++) statuses.push(await badKey("127.0.0.4", "198.51.100.1"));
    assertEquals(statuses.at(-1), 429, "the client sending bad keys is throttled");
    assertEquals(
      await badKey("127.0.0.4", "198.51.100.2"),
      401,
      "another client behind the proxy is not",
    );

    // Not a trusted proxy: each request's header names another client, and none is believed.
    const direct: (number | undefined)[] = [];
    for (let i = 0; i < 35; i++) direct.push(await badKey("127.0.0.5", `203.0.113.${i}`));
    assertEquals(direct.at(-1), 429, "an untrusted sender is throttled as itself");
    const logged = t.lines.filter((l) => l.includes('"msg":"request"'));
    assert(
      logged.some((l) => l.includes('"client":"198.51.100.2"')),
      "the access log names the forwarded client",
    );
    assert(
      !logged.some((l) => l.includes('"client":"203.0.113.')),
      "an untrusted header is never logged as the client",
    );
  } finally {
    await t.close();
  }
});

Deno.test("per-address rules: behind a trusted proxy speaking the PROXY protocol, the client its header names is throttled and logged; refusals are counted", async () => {
  const t = await startTestControlPlane({
    flags: { "trusted-proxies": "127.0.0.4", "listener-proxy-protocol": "required" },
  });
  const port = Number(new URL(t.cp.url).port);
  const badKey = async (client: string) => {
    const c = await RawClient.connectFrom(port, "127.0.0.4");
    try {
      await c.send(
        `PROXY TCP4 ${client} 127.0.0.1 40001 443\r\n` +
          get("/v1/models", {
            authorization: "Bearer sk-llmgw-not-a-key",
            // The client's own claim: not believed, the client is not a trusted proxy.
            "x-forwarded-for": "203.0.113.99",
          }),
      );
      return (await c.answer())?.status;
    } finally {
      c.close();
    }
  };
  try {
    const statuses: (number | undefined)[] = [];
    for (let i = 0; i < 35; i++) statuses.push(await badKey("198.51.100.1"));
    assertEquals(statuses.at(-1), 429, "the client sending bad keys is throttled");
    assertEquals(await badKey("198.51.100.2"), 401, "another client behind the proxy is not");
    const logged = t.lines.filter((l) => l.includes('"msg":"request"'));
    assert(logged.some((l) => l.includes('"client":"198.51.100.2"')), "the access log names it");
    assert(!logged.some((l) => l.includes("203.0.113.99")), "the client's own claim is not logged");

    const plain = await RawClient.connectFrom(port, "127.0.0.4");
    await plain.send(get("/health"));
    assert(await plain.closedWithin(2_000), "required: a connection without a header is let in");
    const metrics = await (await fetch(t.cp.metricsUrl!)).text();
    assertMatch(metrics, /^llmgw_connections_refused_total\{reason="proxy_missing"\} 1$/m);
  } finally {
    await t.close();
  }
});
