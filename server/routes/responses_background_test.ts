/**
 * `background: true` on /v1/responses through the official OpenAI SDK: kept as queued, answered
 * apart, polled with retrieve, followed as a stream (and again from a sequence number), cancelled,
 * and failed when the control plane running it is gone (another control plane on the same store
 * sees its lease run out).
 */
import OpenAI from "openai";
import { assert, assertEquals } from "../../tests/assert.ts";
import { type Harness, type HarnessOptions, startHarness } from "../../tests/helpers/harness.ts";
import { FakeClock } from "../../core/clock.ts";
import { usage } from "../../db/schema.ts";

function client(h: Harness): OpenAI {
  return new OpenAI({
    baseURL: "http://llmgw.test/v1",
    apiKey: h.key,
    maxRetries: 0,
    fetch: async (url, init) => await h.app.request(String(url), init as RequestInit),
  });
}

/** On a store file: the response runs (and writes) while the test reads. */
async function fileHarness(opts: HarnessOptions = {}): Promise<Harness & { dir: string }> {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-background-" });
  const h = await startHarness({ ...opts, storePath: `${dir}/store.db` });
  return {
    ...h,
    dir,
    async close() {
      await h.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

async function until(
  openai: OpenAI,
  id: string,
  done: (r: OpenAI.Responses.Response) => boolean,
): Promise<OpenAI.Responses.Response> {
  for (let i = 0; i < 400; i++) {
    const r = await openai.responses.retrieve(id);
    if (done(r)) return r;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`response ${id} did not get there`);
}

const ended = (r: OpenAI.Responses.Response) => r.status !== "queued" && r.status !== "in_progress";

Deno.test("background: kept as queued at once, answered apart, retrieve polls it to completed", async () => {
  const h = await fileHarness();
  try {
    const openai = client(h);
    const r = await openai.responses.create({
      model: "demo",
      input: "Say hello",
      background: true,
      max_output_tokens: 8,
    });
    assertEquals(r.status, "queued");
    assertEquals(r.background, true);
    assertEquals(r.output, []);
    const done = await until(openai, r.id, ended);
    assertEquals(done.status, "incomplete", "cut by max_output_tokens, as in the foreground");
    assertEquals(done.background, true);
    assert(done.output_text.length > 0, "the answer is kept");
    assertEquals(done.usage?.output_tokens, 8);
    const items = await openai.responses.inputItems.list(r.id);
    assertEquals(items.data.length, 1);
    // A next turn continues it as any other.
    const next = await openai.responses.create({
      model: "demo",
      input: "Again",
      previous_response_id: r.id,
      max_output_tokens: 3,
    });
    assertEquals(next.previous_response_id, r.id);
    await h.usage.flush();
    const rows = await h.store.db.select().from(usage);
    assertEquals(rows.map((u) => u.endpoint), ["/responses", "/responses"]);
  } finally {
    await h.close();
  }
});

Deno.test("background with stream: the events as the SDK checks them, and again after a sequence number", async () => {
  const h = await fileHarness();
  try {
    const openai = client(h);
    const stream = await openai.responses.create({
      model: "demo",
      input: "Say hello",
      background: true,
      stream: true,
      max_output_tokens: 6,
    });
    const seen: { type: string; seq: number }[] = [];
    let id = "";
    for await (const ev of stream) {
      seen.push({ type: ev.type, seq: ev.sequence_number });
      if (ev.type === "response.created") {
        id = ev.response.id;
        assertEquals(ev.response.background, true);
      }
    }
    assertEquals(seen[0]?.type, "response.created");
    assertEquals(seen.at(-1)?.type, "response.incomplete");
    assertEquals(seen.map((s) => s.seq), seen.map((_, i) => i), "numbered from 0, none lost");
    const done = await openai.responses.retrieve(id);
    assertEquals(done.status, "incomplete");

    const again = await openai.responses.retrieve(id, { stream: true, starting_after: 2 });
    const replayed: number[] = [];
    for await (const ev of again) replayed.push(ev.sequence_number);
    assertEquals(replayed, seen.slice(3).map((s) => s.seq));
  } finally {
    await h.close();
  }
});

Deno.test("background: cancel ends it as cancelled and stops the engine's answer", async () => {
  const h = await fileHarness({ tokensPerSecond: 20 });
  try {
    const openai = client(h);
    const r = await openai.responses.create({
      model: "demo",
      input: "Tell a long story",
      background: true,
      max_output_tokens: 400,
    });
    await until(openai, r.id, (x) => x.status === "in_progress");
    const cancelled = await openai.responses.cancel(r.id);
    assertEquals(cancelled.status, "cancelled");
    // The engine's slot is given back: the relay was cut, not read to its end (20 s at 20/s).
    for (let i = 0; i < 200 && h.deps.replicas.forModel("demo")[0]!.inFlight > 0; i++) {
      await new Promise((r) => setTimeout(r, 25));
    }
    assertEquals(h.deps.replicas.forModel("demo")[0]!.inFlight, 0);
    assertEquals((await openai.responses.retrieve(r.id)).status, "cancelled", "the cut stays cut");
    assertEquals(
      (await openai.responses.cancel(r.id)).status,
      "cancelled",
      "cancel again: as it is",
    );

    const foreground = await openai.responses.create({ model: "demo", input: "hi" });
    const refused = await h.v1(`/responses/${foreground.id}/cancel`, {});
    assertEquals(refused.status, 400);
    assertEquals((await refused.json()).error.type, "invalid_request_error");
    const unkept = await h.v1("/responses", {
      model: "demo",
      input: "hi",
      background: true,
      store: false,
    });
    assertEquals(unkept.status, 400);
    assertEquals((await unkept.json()).error.param, "store");
  } finally {
    await h.close();
  }
});

Deno.test("background: when its control plane is gone, another sees the lease run out and fails it", async () => {
  const h = await fileHarness({ tokensPerSecond: 20 });
  const laterClock = new FakeClock();
  const other = await startHarness({ store: h.store, leads: false, clock: laterClock });
  try {
    const r = await client(h).responses.create({
      model: "demo",
      input: "Tell a long story",
      background: true,
      max_output_tokens: 400,
    });
    await until(client(h), r.id, (x) => x.status === "in_progress");
    // The other control plane reads the same response; while the lease holds, it is running.
    const look = () =>
      other.app.request(`/v1/responses/${r.id}`, { headers: { authorization: `Bearer ${h.key}` } });
    assertEquals((await (await look()).json()).status, "in_progress");
    laterClock.advance(60_000);
    const failed = await (await look()).json();
    assertEquals(failed.status, "failed");
    assertEquals(failed.error.code, "server_error");
    // The first control plane's next renewal finds it ended and stops; its answer never lands.
    for (let i = 0; i < 400 && h.deps.replicas.forModel("demo")[0]!.inFlight > 0; i++) {
      await new Promise((r) => setTimeout(r, 25));
    }
    assertEquals(h.deps.replicas.forModel("demo")[0]!.inFlight, 0);
    assertEquals((await client(h).responses.retrieve(r.id)).status, "failed");
  } finally {
    await other.close();
    await h.close();
  }
});
