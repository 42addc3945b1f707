/**
 * docs/routing.md's "a connect error ... is tried on another replica", for the error a dead machine
 * gives: no answer at all to the connection attempt. The first replica's address is a real
 * listening socket that never accepts, its queue filled, so the kernel drops further attempts
 * silently; past the upstream's connect timeout (5 s) the request goes to the second replica,
 * which answers. Real ports, through the harness's front door.
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { startHarness } from "../../tests/helpers/harness.ts";
import { addHarnessReplica, addReplica, chat, usageRows } from "../../tests/helpers/routing.ts";

/**
 * A port whose connection attempts hang: a listener that never accepts, with its accept queue
 * filled by connections held open, so each further SYN is dropped with no reply.
 */
async function silentPort(): Promise<{ port: number; close(): void }> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const held: Deno.TcpConn[] = [];
  for (;;) {
    const attempt = new AbortController();
    const timer = setTimeout(() => attempt.abort(), 500);
    try {
      held.push(await Deno.connect({ hostname: "127.0.0.1", port, signal: attempt.signal }));
    } catch {
      break; // the queue is full: this attempt hung
    } finally {
      clearTimeout(timer);
    }
    if (held.length > 10_000) throw new Error("the listener's queue never filled");
  }
  return {
    port,
    close() {
      for (const c of held) c.close();
      listener.close();
    },
  };
}

Deno.test("a replica whose address never answers the connect is left after the connect timeout for one that does", async () => {
  const h = await startHarness({ breakerFailures: 1 });
  const silent = await silentPort();
  try {
    // Inserted first: with equal queues the batch profile tries it first.
    h.deps.replicas.remove("r1");
    addReplica(h, "silent", `http://127.0.0.1:${silent.port}`);
    addHarnessReplica(h);
    const started = performance.now();
    const res = await h.v1("/chat/completions", chat("hi"), {
      headers: { "x-llmgw-profile": "batch" },
    });
    const took = performance.now() - started;
    assertEquals(res.status, 200, await res.clone().text());
    assertEquals((await res.json()).object, "chat.completion");
    assert(took >= 4_500, `answered after ${Math.round(took)} ms: the connect timeout was waited`);
    const [row] = await usageRows(h);
    assertEquals([row?.status, row?.replicaId], [200, "r1"]);
    assertEquals(h.deps.replicas.get("silent")?.breaker.state(), "open", "its failure counted");
  } finally {
    silent.close();
    await h.close();
  }
});
