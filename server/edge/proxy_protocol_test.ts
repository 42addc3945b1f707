/**
 * The PROXY protocol on the client listener, through real sockets from chosen loopback addresses:
 * versions 1 and 2 (TCP4, TCP6, LOCAL) from a trusted proxy name the client every per-address rule
 * sees; anyone else's header, a malformed one, or a missing one where required closes the
 * connection; a header split across packets is read whole; one sent too slowly is cut.
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { get, RawClient } from "../../tests/helpers/raw_http.ts";
import { listen } from "./testdata/edge_under_test.ts";

const proxy = "127.0.0.4";
const stranger = "127.0.0.5";

/** A version 2 header: PROXY (or LOCAL) over TCP for `source`, with `tlv` bytes after the addresses. */
function v2(
  source: { v4: number[]; port: number } | { v6: number[]; port: number } | "local",
  tlv: number[] = [],
): Uint8Array {
  const sig = [0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a];
  if (source === "local") return new Uint8Array([...sig, 0x20, 0x00, 0, tlv.length, ...tlv]);
  const port = [source.port >> 8, source.port & 255];
  const body = "v4" in source
    ? [...source.v4, 127, 0, 0, 1, ...port, 0x1f, 0x90]
    : [...source.v6, ...new Array(15).fill(0), 1, ...port, 0x1f, 0x90];
  const all = [...body, ...tlv];
  return new Uint8Array([
    ...sig,
    0x21,
    "v4" in source ? 0x11 : 0x21,
    all.length >> 8,
    all.length & 255,
    ...all,
  ]);
}

const bytes = (text: string) => new TextEncoder().encode(text);
const join = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) (out.set(p, at), at += p.byteLength);
  return out;
};

/** Starts a listener that answers each request with the client it was told of. */
async function echoClient(flags: Record<string, string>) {
  const seen: string[] = [];
  const l = await listen({ "trusted-proxies": proxy, ...flags }, (_req, env) => {
    seen.push(`${env.remoteAddr.hostname} ${env.remoteAddr.port}`);
    return new Response(`${env.remoteAddr.hostname} ${env.remoteAddr.port}`);
  });
  return { l, seen };
}

/** Sends `first` (and, if any, a request) from `from`; the answer's body, or "closed". */
async function ask(port: number, from: string, first: Uint8Array | string, request = get("/")) {
  const c = await RawClient.connectFrom(port, from);
  try {
    await c.send(join(typeof first === "string" ? bytes(first) : first, bytes(request)));
    const a = await c.answer(3_000);
    if (a === undefined) return c.ended ? "closed" : "no answer";
    return a.status === 200 ? a.body : `status ${a.status}`;
  } finally {
    c.close();
  }
}

Deno.test("PROXY protocol: v1 and v2 headers from a trusted proxy name the client (TCP4, TCP6, LOCAL)", async () => {
  const { l } = await echoClient({ "listener-proxy-protocol": "optional" });
  await using _ = l;
  const v6 = [0x20, 0x01, 0x0d, 0xb8, ...new Array(11).fill(0), 7];
  const mapped = [...new Array(10).fill(0), 0xff, 0xff, 198, 51, 100, 8];
  assertEquals(
    await ask(l.port, proxy, "PROXY TCP4 198.51.100.1 10.0.0.1 40001 443\r\n"),
    "198.51.100.1 40001",
  );
  assertEquals(
    await ask(l.port, proxy, "PROXY TCP6 2001:DB8:0:0::9 ::1 40002 443\r\n"),
    "2001:db8::9 40002",
    "an IPv6 client is counted in the form the runtime writes",
  );
  assert(
    (await ask(l.port, proxy, "PROXY UNKNOWN ffff::1 ::1 1 2\r\n")).startsWith(`${proxy} `),
    "UNKNOWN: the proxy itself",
  );
  assertEquals(
    await ask(l.port, proxy, v2({ v4: [203, 0, 113, 7], port: 1234 })),
    "203.0.113.7 1234",
  );
  assertEquals(await ask(l.port, proxy, v2({ v6, port: 65535 })), "2001:db8::7 65535");
  assertEquals(
    await ask(l.port, proxy, v2({ v6: mapped, port: 80 })),
    "198.51.100.8 80",
    "an IPv4-mapped IPv6 client is its IPv4 address",
  );
  assertEquals(
    await ask(l.port, proxy, v2({ v4: [203, 0, 113, 9], port: 9 }, [0x04, 0, 2, 0xab, 0xcd])),
    "203.0.113.9 9",
    "TLVs after the addresses are skipped",
  );
  assert(
    (await ask(l.port, proxy, v2("local"))).startsWith(`${proxy} `),
    "LOCAL: the proxy itself",
  );
  assert(
    (await ask(l.port, proxy, "")).startsWith(`${proxy} `),
    "optional: a trusted proxy's plain request is served as its own",
  );
});

Deno.test("PROXY protocol: anyone else's header, a malformed one, or none where required closes the connection unanswered", async () => {
  const { l, seen } = await echoClient({ "listener-proxy-protocol": "required" });
  await using _ = l;
  const v1 = "PROXY TCP4 198.51.100.1 10.0.0.1 40001 443\r\n";
  assertEquals(await ask(l.port, stranger, v1), "closed", "an untrusted peer's v1 header");
  assertEquals(
    await ask(l.port, stranger, v2({ v4: [198, 51, 100, 1], port: 1 })),
    "closed",
    "an untrusted peer's v2 header",
  );
  assert(
    (await ask(l.port, stranger, "")).startsWith(`${stranger} `),
    "an untrusted peer's plain request is served as its own",
  );
  assertEquals(await ask(l.port, proxy, ""), "closed", "required: a trusted proxy without one");
  const malformed: (string | Uint8Array)[] = [
    "PROXY TCP4 198.51.100.1 10.0.0.1 40001\r\n",
    "PROXY TCP4  198.51.100.1 10.0.0.1 40001 443\r\n",
    "PROXY TCP4 198.51.100.300 10.0.0.1 40001 443\r\n",
    "PROXY TCP4 2001:db8::1 10.0.0.1 40001 443\r\n",
    "PROXY TCP6 198.51.100.1 ::1 40001 443\r\n",
    "PROXY TCP4 198.51.100.1 10.0.0.1 70000 443\r\n",
    "PROXY TCP4 198.51.100.1 10.0.0.1 040001 443\r\n",
    "PROXY TCP4 198.51.100.1 10.0.0.1 40001 443\n",
    "PROXY UDP4 198.51.100.1 10.0.0.1 40001 443\r\n",
    `PROXY TCP4 198.51.100.1 10.0.0.1 40001 443${" ".repeat(80)}\r\n`,
    (() => {
      const h = v2({ v4: [198, 51, 100, 1], port: 1 });
      h[12] = 0x31; // version 3
      return h;
    })(),
    (() => {
      const h = v2({ v4: [198, 51, 100, 1], port: 1 });
      h[13] = 0x12; // over UDP
      return h;
    })(),
    (() => {
      const h = v2({ v4: [198, 51, 100, 1], port: 1 });
      h[13] = 0x21; // says IPv6, carries IPv4's 12 bytes
      return h;
    })(),
  ];
  for (const [i, m] of malformed.entries()) {
    assertEquals(await ask(l.port, proxy, m), "closed", `malformed header ${i}`);
  }
  assertEquals(seen.length, 1, "no request behind a refused header reached the app");
});

Deno.test("PROXY protocol: a header split across packets is read whole; one sent too slowly is cut at listener.header_timeout_ms", async () => {
  const { l } = await echoClient({
    "listener-proxy-protocol": "optional",
    "listener-header-timeout-ms": "600",
  });
  await using _ = l;
  for (
    const header of [
      bytes("PROXY TCP4 198.51.100.1 10.0.0.1 40001 443\r\n"),
      v2({ v4: [203, 0, 113, 7], port: 1234 }),
    ]
  ) {
    const c = await RawClient.connectFrom(l.port, proxy);
    // Pieces apart in time, each its own segment: across the signature, the length and the address.
    for (const [from, to] of [[0, 3], [3, 13], [13, 15], [15, 20], [20, header.byteLength]]) {
      await c.send(header.subarray(from, to));
      await new Promise((r) => setTimeout(r, 30));
    }
    await c.send(get("/"));
    const a = await c.answer(3_000);
    assert(a?.body === "198.51.100.1 40001" || a?.body === "203.0.113.7 1234", a?.body);
    c.close();
  }

  const slow = await RawClient.connectFrom(l.port, proxy);
  const line = "PROXY TCP4 198.51.100.1 10.0.0.1 40001 443\r\n";
  const started = performance.now();
  let sent = 0;
  const trickle = (async () => {
    for (; sent < line.length && !slow.ended; sent++) {
      await slow.send(line[sent]!).catch(() => {});
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  assert(await slow.closedWithin(4_000), "the slow PROXY line is still being waited for");
  const took = performance.now() - started;
  assert(took >= 500 && took < 3_000, `cut after ${Math.round(took)} ms`);
  assert(sent < line.length, "the whole line was sent before the cut");
  await trickle;
});

Deno.test("PROXY protocol: the per-address cap counts the client a header names, not the proxy", async () => {
  const { l } = await echoClient({
    "listener-proxy-protocol": "required",
    "listener-max-connections-per-address": "1",
  });
  await using _ = l;
  const header = (client: string) => `PROXY TCP4 ${client} 10.0.0.1 40001 443\r\n`;
  const first = await RawClient.connectFrom(l.port, proxy);
  await first.send(header("198.51.100.1") + get("/"));
  assertEquals((await first.answer())?.body, "198.51.100.1 40001");
  const second = await RawClient.connectFrom(l.port, proxy);
  await second.send(header("198.51.100.1"));
  assert(await second.closedWithin(2_000), "a second connection for 198.51.100.1 is let in");
  const other = await RawClient.connectFrom(l.port, proxy);
  await other.send(header("198.51.100.2") + get("/"));
  assertEquals((await other.answer())?.body, "198.51.100.2 40001", "another client is not capped");
  first.close();
  await new Promise((r) => setTimeout(r, 100));
  const again = await RawClient.connectFrom(l.port, proxy);
  await again.send(header("198.51.100.1") + get("/"));
  assertEquals((await again.answer())?.body, "198.51.100.1 40001", "a closed one makes room");
  for (const c of [second, other, again]) c.close();
});

Deno.test("PROXY protocol: IPv6 clients are capped by their /64, as one host may send from any address in it", async () => {
  const { l } = await echoClient({
    "listener-proxy-protocol": "required",
    "listener-max-connections-per-address": "2",
  });
  await using _ = l;
  const from = async (client: string) => {
    const c = await RawClient.connectFrom(l.port, proxy);
    await c.send(`PROXY TCP6 ${client} ::1 40001 443\r\n` + get("/"));
    return { c, answer: (await c.answer(2_000))?.body ?? "closed" };
  };
  const a = await from("2001:db8:0:1::a");
  const b = await from("2001:db8:0:1:ffff::b");
  const c = await from("2001:db8:0:1::c");
  const d = await from("2001:db8:0:2::a");
  assertEquals(
    [a.answer, b.answer, c.answer, d.answer],
    ["2001:db8:0:1::a 40001", "2001:db8:0:1:ffff::b 40001", "closed", "2001:db8:0:2::a 40001"],
    "the third from 2001:db8:0:1::/64 is refused, another /64 is not; each is named as itself",
  );
  for (const x of [a, b, c, d]) x.c.close();
});

Deno.test("PROXY protocol: off (the default), a header is not read from anyone: the request is refused", async () => {
  const { l, seen } = await echoClient({});
  await using _ = l;
  const answer = await ask(l.port, proxy, "PROXY TCP4 198.51.100.1 10.0.0.1 40001 443\r\n");
  assertEquals(answer, "status 400", "the PROXY line read as a request line");
  assertEquals(
    await ask(l.port, proxy, v2({ v4: [198, 51, 100, 1], port: 1 })),
    "status 400",
  );
  assertEquals(seen, [], "the app saw no request with a made-up client");
});
