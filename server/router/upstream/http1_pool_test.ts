import { assert, assertEquals, assertRejects } from "../../../tests/assert.ts";
import { Http1Pool } from "./http1_pool.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/**
 * A real TCP server that answers each request head with what `answer` writes, so each test can
 * send framing a library server would not (a connection closed while idle, a body cut short).
 */
function rawServer(answer: (conn: Deno.Conn, request: string, n: number) => Promise<boolean>) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let accepted = 0;
  let requests = 0;
  const conns = new Set<Deno.Conn>();
  const loop = (async () => {
    for await (const conn of listener) {
      accepted++;
      conns.add(conn);
      (async () => {
        const buf = new Uint8Array(64 * 1024);
        let have = "";
        try {
          for (;;) {
            const n = await conn.read(buf);
            if (n === null) break;
            have += dec.decode(buf.subarray(0, n));
            const end = have.indexOf("\r\n\r\n");
            if (end < 0) continue;
            const len = Number(/content-length: (\d+)/i.exec(have.slice(0, end))?.[1] ?? 0);
            if (have.length < end + 4 + len) continue;
            const request = have.slice(0, end + 4 + len);
            have = have.slice(end + 4 + len);
            if (!(await answer(conn, request, ++requests))) break;
          }
        } catch {
          // The client went away.
        }
        conns.delete(conn);
        try {
          conn.close();
        } catch { /* closed */ }
      })();
    }
  })();
  const port = (listener.addr as Deno.NetAddr).port;
  return {
    url: `http://127.0.0.1:${port}`,
    get accepted() {
      return accepted;
    },
    async close() {
      listener.close();
      for (const c of conns) {
        try {
          c.close();
        } catch { /* closed */ }
      }
      await loop.catch(() => {});
    },
  };
}

/** `fn` with a raw server answering by `answer` and a pool to reach it; both closed after. */
async function withRawServer(
  answer: Parameters<typeof rawServer>[0],
  fn: (server: ReturnType<typeof rawServer>, pool: Http1Pool) => Promise<void>,
  opts?: ConstructorParameters<typeof Http1Pool>[0],
): Promise<void> {
  const server = rawServer(answer);
  const pool = new Http1Pool(opts);
  try {
    await fn(server, pool);
  } finally {
    pool.close();
    await server.close();
  }
}

const write = (conn: Deno.Conn, s: string) => conn.write(enc.encode(s));
const post = (url: string, body = "{}", signal?: AbortSignal) => ({
  method: "POST",
  url,
  headers: { "content-type": "application/json" },
  body: enc.encode(body),
  ...(signal ? { signal } : {}),
});

Deno.test("http1 pool: keeps one connection for requests in turn, and sends the body whole", async () => {
  const seen: string[] = [];
  await withRawServer(async (conn, request) => {
    seen.push(request);
    await write(
      conn,
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n",
    );
    await write(conn, '{"ok":true}');
    return true;
  }, async (server, pool) => {
    for (let i = 0; i < 3; i++) {
      const res = await pool.request(post(`${server.url}/v1/chat/completions?x=1`, `{"n":${i}}`));
      assertEquals(res.status, 200);
      assertEquals(res.headers.get("content-type"), "application/json");
      assertEquals(await res.text(), '{"ok":true}');
    }
    assertEquals(server.accepted, 1);
    assertEquals(pool.idleCount, 1);
    assert(seen[2]!.startsWith("POST /v1/chat/completions?x=1 HTTP/1.1\r\n"));
    assert(seen[2]!.includes("content-length: 7\r\n"));
    assert(seen[2]!.endsWith('\r\n\r\n{"n":2}'));
  });
});

Deno.test("http1 pool: a chunked stream arrives piece by piece, as the engine writes it", async () => {
  const next = Promise.withResolvers<void>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () =>
      new Response(
        new ReadableStream({
          async start(ctrl) {
            ctrl.enqueue(enc.encode("data: one\n\n"));
            await next.promise;
            ctrl.enqueue(enc.encode("data: two\n\n"));
            ctrl.close();
          },
        }),
        { headers: { "content-type": "text/event-stream" } },
      ),
  );
  const pool = new Http1Pool();
  try {
    const res = await pool.request(post(`http://127.0.0.1:${server.addr.port}/s`));
    assertEquals(res.headers.get("transfer-encoding"), "chunked");
    // The second event is only written once the first has been read: no buffering to the end.
    assertEquals(dec.decode(await res.read() ?? new Uint8Array()), "data: one\n\n");
    next.resolve();
    let rest = "";
    for (let p = await res.read(); p; p = await res.read()) rest += dec.decode(p);
    assertEquals(rest, "data: two\n\n");
    assertEquals(pool.idleCount, 1);
  } finally {
    pool.close();
    await server.shutdown();
  }
});

Deno.test("http1 pool: a kept connection the engine closed is replaced without failing the request", async () => {
  await withRawServer(async (conn, _request, n) => {
    await write(conn, "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok");
    // The first connection is closed after its answer, as a server's keep-alive timeout would.
    return n > 1;
  }, async (server, pool) => {
    assertEquals(await (await pool.request(post(server.url))).text(), "ok");
    await new Promise((r) => setTimeout(r, 50));
    assertEquals(await (await pool.request(post(server.url))).text(), "ok");
    assertEquals(server.accepted, 2);
  });
});

Deno.test("http1 pool: idle connections the engine closes leave the pool at once, and no request fails for them", async () => {
  // Like llama-server's HTTP library, which may close a kept-alive connection whenever it likes
  // without saying so in the answer: here each one, a moment after answering.
  await withRawServer(async (conn) => {
    await write(conn, "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok");
    await new Promise((r) => setTimeout(r, 20));
    return false;
  }, async (server, pool) => {
    const three = await Promise.all([1, 2, 3].map(() => pool.request(post(server.url))));
    for (const res of three) assertEquals(await res.text(), "ok");
    assertEquals(pool.idleCount, 3);
    for (let i = 0; i < 100 && pool.idleCount > 0; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assertEquals(pool.idleCount, 0, "closed connections noticed while idle");
    // Requests right after answers, while the closes are on their way: none fails.
    for (let i = 0; i < 10; i++) {
      assertEquals(await (await pool.request(post(server.url))).text(), "ok");
    }
  });
});

Deno.test("http1 pool: a connection idle past idleMs is not reused", async () => {
  await withRawServer(async (conn) => {
    await write(conn, "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok");
    return true;
  }, async (server, pool) => {
    await (await pool.request(post(server.url))).text();
    await new Promise((r) => setTimeout(r, 60));
    await (await pool.request(post(server.url))).text();
    assertEquals(server.accepted, 2);
  }, { idleMs: 20 });
});

Deno.test("http1 pool: a body to the connection's close, `connection: close` and HTTP/1.0 are read whole and not reused", async () => {
  await withRawServer(async (conn, _request, n) => {
    await write(
      conn,
      n === 1
        ? "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\nall of it"
        : n === 2
        ? "HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 4\r\n\r\nbye!"
        : "HTTP/1.0 200 OK\r\ncontent-length: 4\r\n\r\nold!",
    );
    return false;
  }, async (server, pool) => {
    assertEquals(await (await pool.request(post(server.url))).text(), "all of it");
    assertEquals(await (await pool.request(post(server.url))).text(), "bye!");
    assertEquals(await (await pool.request(post(server.url))).text(), "old!");
    assertEquals(pool.idleCount, 0);
  });
});

Deno.test("http1 pool: an answer cut short fails the read, and the connection is dropped", async () => {
  await withRawServer(async (conn) => {
    await write(conn, "HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nonly this");
    return false;
  }, async (server, pool) => {
    const res = await pool.request(post(server.url));
    await assertRejects(() => res.text(), Deno.errors.UnexpectedEof);
    assertEquals(pool.idleCount, 0);
  });
});

Deno.test("http1 pool: aborting fails the waiting read with the signal's reason", async () => {
  const abort = new AbortController();
  await withRawServer(async (conn) => {
    await write(conn, "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nfirst\r\n");
    return true; // and never the rest
  }, async (server, pool) => {
    const res = await pool.request(post(server.url, "{}", abort.signal));
    assertEquals(dec.decode(await res.read() ?? new Uint8Array()), "first");
    const pending = res.read();
    abort.abort(new DOMException("no token in time", "TimeoutError"));
    const err = await pending.then(() => null, (e) => e);
    assertEquals((err as Error).name, "TimeoutError");
    assertEquals(pool.idleCount, 0);
    // Before any answer, too.
    const early = new AbortController();
    early.abort(new DOMException("gone", "AbortError"));
    const refused = await pool.request(post(server.url, "{}", early.signal)).then(
      () => null,
      (e) => e,
    );
    assertEquals((refused as Error).name, "AbortError");
  });
});

Deno.test("http1 pool: refuses header values that would start a header of their own", async () => {
  const pool = new Http1Pool();
  await assertRejects(
    () =>
      pool.request({
        method: "POST",
        url: "http://127.0.0.1:9/",
        headers: { authorization: "Bearer x\r\nx-evil: 1" },
      }),
    TypeError,
  );
  await assertRejects(() => pool.request(post("https://127.0.0.1:9/")), TypeError);
  pool.close();
});

Deno.test("http1 pool: a refused connection fails as the runtime reports it", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const pool = new Http1Pool();
  await assertRejects(
    () => pool.request(post(`http://127.0.0.1:${port}/`)),
    Deno.errors.ConnectionRefused,
  );
  pool.close();
});

Deno.test("http1 pool: a connection that does not open in time fails as unreachable; an abort ends the wait", async () => {
  // A host that drops the attempt silently: the dial never settles until its signal fires.
  const silent = (opts: Deno.ConnectOptions) =>
    new Promise<Deno.TcpConn>((_, reject) => {
      opts.signal?.addEventListener("abort", () => reject(new Error("dial aborted")));
    });
  const pool = new Http1Pool({ connectTimeoutMs: 50, connect: silent });
  try {
    const started = performance.now();
    const err = await pool.request(post("http://10.0.0.1:8080/")).then(() => null, (e) => e);
    assert(err instanceof Deno.errors.TimedOut, String(err));
    assert(performance.now() - started < 2_000);
    const abort = new AbortController();
    const waiting = pool.request(post("http://10.0.0.1:8080/", "{}", abort.signal));
    abort.abort(new DOMException("the client went away", "AbortError"));
    assertEquals(((await waiting.then(() => null, (e) => e)) as Error).name, "AbortError");
  } finally {
    pool.close();
  }
});
