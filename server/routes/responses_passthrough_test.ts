/**
 * An outside provider that serves the Responses API itself (`external.responses: true`) is sent
 * /v1/responses requests as they came, to its /v1/responses, and its answer (whole or streamed)
 * goes back as it came; usage is read from the Responses shape. A fake provider (a real server
 * on a loopback port) records what it got.
 */
import OpenAI from "openai";
import { assert, assertEquals } from "../../tests/assert.ts";
import { type Harness, startHarness } from "../../tests/helpers/harness.ts";
import { fakeServer, usageRows } from "../../tests/helpers/routing.ts";
import { silentLogger } from "../../core/log.ts";
import { followExternalModels } from "../router/external.ts";
import { parseModel } from "../models/model_yaml.ts";
import { rowFromDef } from "../models/catalog_row.ts";

type Json = Record<string, unknown>;

const usage = {
  input_tokens: 11,
  input_tokens_details: { cached_tokens: 3 },
  output_tokens: 4,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 15,
};

function answer(model: string): Json {
  return {
    id: "resp_upstream_1",
    object: "response",
    created_at: 1,
    status: "completed",
    model,
    output: [{
      id: "msg_u1",
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: "from upstream", annotations: [] }],
    }],
    usage,
  };
}

/** The Responses events the provider streams, each numbered. */
function events(model: string): string {
  const done = answer(model);
  const started = { ...done, status: "in_progress", output: [], usage: null };
  const item = (done.output as Json[])[0]!;
  const list: Json[] = [
    { type: "response.created", response: started },
    { type: "response.in_progress", response: started },
    {
      type: "response.output_item.added",
      output_index: 0,
      item: { ...item, status: "in_progress", content: [] },
    },
    {
      type: "response.content_part.added",
      item_id: "msg_u1",
      output_index: 0,
      content_index: 0,
      part: { type: "output_text", text: "", annotations: [] },
    },
    {
      type: "response.output_text.delta",
      item_id: "msg_u1",
      output_index: 0,
      content_index: 0,
      delta: "from upstream",
    },
    {
      type: "response.output_text.done",
      item_id: "msg_u1",
      output_index: 0,
      content_index: 0,
      text: "from upstream",
    },
    {
      type: "response.content_part.done",
      item_id: "msg_u1",
      output_index: 0,
      content_index: 0,
      part: { type: "output_text", text: "from upstream", annotations: [] },
    },
    { type: "response.output_item.done", output_index: 0, item },
    { type: "response.completed", response: done },
  ];
  return list.map((e, i) =>
    `event: ${e.type}\ndata: ${JSON.stringify({ ...e, sequence_number: i })}\n\n`
  ).join("");
}

async function provider(h: Harness, dir: string) {
  const seen: { path: string; auth: string; body: Json }[] = [];
  const server = fakeServer(async (req) => {
    const body = await req.json();
    seen.push({
      path: new URL(req.url).pathname,
      auth: req.headers.get("authorization") ?? "",
      body,
    });
    if (body.stream) {
      return new Response(events(body.model), { headers: { "content-type": "text/event-stream" } });
    }
    return Response.json(answer(body.model));
  });
  await Deno.writeTextFile(`${dir}/oa.key`, "sk-upstream\n");
  const external = await followExternalModels(h.deps.catalog, h.deps.replicas, silentLogger);
  const def = parseModel({
    name: "oa",
    external: {
      url: `${server.url}/v1`,
      model: "gpt-up",
      api_key_file: `${dir}/oa.key`,
      responses: true,
    },
  });
  await h.deps.catalog.upsert(rowFromDef(def, {}, "api"));
  await external.settled();
  return { seen, close: server.close };
}

function client(h: Harness): OpenAI {
  return new OpenAI({
    baseURL: "http://llmgw.test/v1",
    apiKey: h.key,
    maxRetries: 0,
    fetch: async (url, init) => await h.app.request(String(url), init as RequestInit),
  });
}

Deno.test("a provider that serves the Responses API gets the request as it came, and its answer comes back", async () => {
  const dir = await Deno.makeTempDir();
  const h = await startHarness();
  const p = await provider(h, dir);
  try {
    const openai = client(h);
    // A built-in tool refused for translated models is the provider's to serve here.
    const ask = {
      model: "oa",
      input: [{ role: "user" as const, content: "hi" }],
      tools: [{ type: "web_search" as const }],
      include: ["reasoning.encrypted_content" as const],
      store: false,
      metadata: { run: "p1" },
    };
    const r = await openai.responses.create(ask);
    assertEquals(r.id, "resp_upstream_1", "the provider's own response");
    assertEquals(r.output_text, "from upstream");
    assertEquals(p.seen.length, 1);
    const got = p.seen[0]!;
    assertEquals(got.path, "/v1/responses");
    assertEquals(got.auth, "Bearer sk-upstream");
    assertEquals(
      got.body,
      { ...ask, model: "gpt-up" },
      "as sent, but for the provider's model name",
    );

    const stream = openai.responses.stream({ model: "oa", input: "hi" });
    const seq: number[] = [];
    for await (const ev of stream) seq.push(ev.sequence_number);
    const final = await stream.finalResponse();
    assertEquals(final.output_text, "from upstream");
    assertEquals(seq, [0, 1, 2, 3, 4, 5, 6, 7, 8], "every event of the provider's, in order");
    assertEquals(p.seen[1]!.body.stream, true);
    assert(!("stream_options" in p.seen[1]!.body), "nothing of chat's is added");

    const rows = await usageRows(h);
    assertEquals(rows.length, 2);
    for (const row of rows) {
      assertEquals(row.endpoint, "/responses");
      assertEquals(row.model, "oa");
      assertEquals([row.promptTokens, row.completionTokens, row.cachedTokens], [11, 4, 3]);
    }
  } finally {
    await p.close();
    await h.close();
    await Deno.remove(dir, { recursive: true });
  }
});
