/**
 * Stopping a real `llmgw up`: SIGTERM lets a stream in flight finish and writes its usage row
 * before exit, while new connections are refused; SIGKILL loses at most the last
 * `usage.flush_interval_ms` (1 s by default) of usage rows: a request that completed 1.5 s
 * before the kill is in the store, and the engine it left running is stopped by the next start
 * when that start wants another (its settings changed meanwhile), never left to run on.
 */
import { assert, assertEquals } from "../assert.ts";
import { startAppliance } from "../helpers/appliance.ts";
import { alive, recordedEnginePids } from "../helpers/engine_pids.ts";
import { eventually } from "../helpers/llmgw_process.ts";
import { openStore } from "../../db/store.ts";
import { usage } from "../../db/schema.ts";
import { post, RawClient } from "../helpers/raw_http.ts";

/** One chat completion, answered whole; returns its request id. */
async function chatOnce(url: string, key: string): Promise<string | null> {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "demo", messages: [{ role: "user", content: "hi" }] }),
  });
  const text = await res.text();
  assertEquals(res.status, 200, text);
  return res.headers.get("x-request-id");
}

/** A streamed chat of `maxTokens` tokens, started; its body is the caller's to read. */
async function openStream(
  app: { url: string; key: string },
  maxTokens: number,
): Promise<ReadableStream<Uint8Array>> {
  const res = await fetch(`${app.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${app.key}`, "content-type": "application/json" },
    body: JSON.stringify({
      model: "demo",
      stream: true,
      max_tokens: maxTokens,
      messages: [{ role: "user", content: "tell me something long" }],
    }),
  });
  assertEquals(res.status, 200);
  return res.body!;
}

async function rows(dataDir: string) {
  const store = await openStore(`${dataDir}/llmgw.db`);
  try {
    return await store.db.select().from(usage);
  } finally {
    store.close();
  }
}

Deno.test({
  name: "SIGKILL 1.5 s after a request completes loses no usage row (flush interval 0.5 s)",
  sanitizeResources: false,
  async fn() {
    // Three flush intervals, not one and a half: a busy machine may run a flush late.
    const app = await startAppliance({
      args: ["--usage-flush-interval-ms", "500", "--engines-sim-tokens-per-second", "5000"],
    });
    try {
      const id = await chatOnce(app.url, app.key);
      await new Promise((r) => setTimeout(r, 1_500));
      await app.kill("SIGKILL");
      const written = await rows(app.dataDir);
      assert(written.some((r) => r.requestId === id), "the completed request's row was written");

      // Nothing could stop the engine: it outlives the appliance. The next start, with another
      // engine speed, first adopts it, then replaces it.
      let [engine] = await recordedEnginePids(app.dataDir);
      assert(engine && alive(engine), "the engine outlived its SIGKILLed appliance");
      const again = await startAppliance({
        dataDir: app.dataDir,
        args: ["--engines-sim-tokens-per-second", "4000"],
      });
      try {
        await chatOnce(again.url, app.key);
        const now = await recordedEnginePids(app.dataDir);
        assertEquals(now.length, 1);
        assert(now[0] !== engine, "a new engine serves");
        assert(!alive(engine), "the engine left running was stopped, not left out of the record");
        engine = now[0]!;
      } finally {
        assertEquals(await again.stop(), 0);
      }
      assert(!alive(engine), "stopped with the appliance");
    } finally {
      await app.kill("SIGKILL");
      await Deno.remove(app.dataDir, { recursive: true });
    }
  },
});

Deno.test({
  name: "SIGTERM: a stream in flight finishes, its usage row is written, new requests are refused",
  sanitizeResources: false,
  async fn() {
    const app = await startAppliance({
      args: ["--usage-flush-interval-ms", "60000", "--engines-sim-tokens-per-second", "20"],
    });
    try {
      // 60 tokens at 20 a second: the stream is still running (3 s) while the listener closes.
      const reader = (await openStream(app, 60)).pipeThrough(new TextDecoderStream()).getReader();
      let text = (await reader.read()).value ?? "";
      const exited = app.kill("SIGTERM");
      // Polled, not slept: how soon a busy machine gets to closing the listener varies.
      await eventually(
        "new connections refused once stopping",
        () => fetch(`${app.url}/health`).then((r) => r.body?.cancel(), () => true),
        10_000,
        20,
      );
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += value;
      }
      assert(text.includes("data: [DONE]"), "the stream ran to its end");
      assertEquals(await exited, 0);
      const written = await rows(app.dataDir);
      assertEquals(written.length, 1);
      assertEquals(written[0]!.status, 200);
      assertEquals(written[0]!.completionTokens, 60);
    } finally {
      await app.kill("SIGKILL");
      await Deno.remove(app.dataDir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "SIGTERM: a request sent on a kept-alive connection while stopping is answered, with Connection: close, and has its usage row",
  sanitizeResources: false,
  async fn() {
    const app = await startAppliance({
      args: ["--usage-flush-interval-ms", "60000", "--engines-sim-tokens-per-second", "20"],
    });
    const kept = await RawClient.connect(Number(new URL(app.url).port));
    try {
      const chat = post("/v1/chat/completions", {
        model: "demo",
        max_tokens: 2,
        messages: [{ role: "user", content: "hi" }],
      }, { authorization: `Bearer ${app.key}` });
      await kept.send(chat);
      const first = await kept.answer();
      assertEquals(first?.status, 200);
      assertEquals(first?.headers.get("connection"), undefined, "kept alive");
      // A stream in flight keeps the stop waiting for it.
      const reader = (await openStream(app, 30)).getReader();
      await reader.read();
      const exited = app.kill("SIGTERM");
      await new Promise((r) => setTimeout(r, 300));
      await kept.send(chat);
      const second = await kept.answer();
      assertEquals(second?.status, 200, "the request sent while stopping is answered");
      assertEquals(second?.headers.get("connection"), "close", "and is the connection's last");
      assert(await kept.closedWithin(2_000), "the connection closes after its last answer");
      while (!(await reader.read()).done);
      assertEquals(await exited, 0);
      const written = await rows(app.dataDir);
      assertEquals(written.map((r) => r.status), [200, 200, 200], "every answer has its usage row");
    } finally {
      kept.close();
      await app.kill("SIGKILL");
      await Deno.remove(app.dataDir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "a second SIGINT stops now: the stream in flight is cut, the engine is gone, its usage row is still written",
  sanitizeResources: false,
  async fn() {
    const app = await startAppliance({
      // A stream that would take 100 s, well inside a 60 s grace it must not wait out.
      args: [
        "--usage-flush-interval-ms",
        "60000",
        "--engines-sim-tokens-per-second",
        "2",
        "--shutdown-grace-ms",
        "60000",
      ],
    });
    try {
      const reader = (await openStream(app, 200)).getReader();
      await reader.read();
      const [engine] = await recordedEnginePids(app.dataDir);
      assert(engine && alive(engine), "the engine runs");

      const started = Date.now();
      const exited = app.kill("SIGINT");
      await eventually(
        "the first Ctrl-C says how to hurry",
        () => Promise.resolve(app.output().includes("Ctrl-C again to stop now") || undefined),
        10_000,
        20,
      );
      Deno.kill(app.pid, "SIGINT");
      // The stream ends (cut) instead of running its 100 s.
      for (;;) {
        const r = await reader.read().catch(() => ({ done: true }));
        if (r.done) break;
      }
      assertEquals(await exited, 0);
      const took = Date.now() - started;
      assert(took < 15_000, `stopped in ${took} ms, not after the 60 s grace`);
      assert(!alive(engine), "the engine was stopped with the appliance");
      const written = await rows(app.dataDir);
      assertEquals(written.length, 1);
      assertEquals(written[0]!.status, 499);
    } finally {
      await app.kill("SIGKILL");
      await Deno.remove(app.dataDir, { recursive: true });
    }
  },
});
