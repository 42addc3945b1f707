/**
 * Retrieval-augmented answers: chat naming a collection in `x-llmgw-kb`, and the Responses API's
 * file_search tool, against an engine that keeps what it was sent (so the test sees the prompt
 * the model saw) and answers citing [1].
 */
import { assert, assertEquals, assertThrows } from "../../tests/assert.ts";
import { AppError } from "../../core/errors.ts";
import { parseModel } from "../models/model_yaml.ts";
import { startEchoEngine } from "../../tests/helpers/echo_engine.ts";
import { addDocument, type KbSetting, makeCollection, startKb } from "../../tests/helpers/kb.ts";
import { ok } from "../../tests/helpers/tenants.ts";

const manual = `# Coffee machine

Descale the coffee machine every 200 cups with citric acid.

# Printer

The printer on floor three jams when fed card stock.`;

async function setting(): Promise<KbSetting & { echo: ReturnType<typeof startEchoEngine> }> {
  const s = await startKb();
  const echo = startEchoEngine({ prefix: "As [1] says: " });
  await s.h.deps.catalog.upsert({ name: "echo", engine: "sim", source: "" });
  s.h.deps.replicas.upsert({
    id: "r-echo",
    model: "echo",
    baseUrl: echo.url,
    apiKey: "x",
    state: "ready",
  });
  const col = await makeCollection(s.h, { name: "office", project_id: s.tenant.project.id });
  await addDocument(s.h, col.id, "office.md", manual);
  return { ...s, echo, close: async () => (await s.close(), await echo.close()) };
}

function post(s: KbSetting, path: string, body: unknown, headers: Record<string, string> = {}) {
  return s.h.app.request(`/v1${path}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${s.tenant.member.key}`,
      "content-type": "application/json",
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

const systemText = (body: Record<string, unknown>) =>
  (body.messages as { role: string; content: string }[]).filter((m) => m.role === "system")
    .map((m) => m.content).join("\n");

Deno.test("kb: chat with x-llmgw-kb gets the passages in its prompt and citations back", async () => {
  const s = await setting();
  try {
    const res = await post(s, "/chat/completions", {
      model: "echo",
      messages: [{ role: "user", content: "how often should the coffee machine be descaled?" }],
    }, { "x-llmgw-kb": "office" });
    const body = await res.json();
    assertEquals(res.status, 200, JSON.stringify(body));
    const prompt = systemText(s.echo.seen.at(-1)!);
    assert(prompt.includes("[1] office.md — Coffee machine"), prompt);
    assert(prompt.includes("every 200 cups"), prompt);
    assertEquals(body.citations[0].document, "office.md");
    assertEquals(body.citations[0].heading, "Coffee machine");
    assertEquals(
      res.headers.get("x-llmgw-kb-passages")?.split(",")[0],
      body.citations[0].passage_id,
    );

    const other = await post(s, "/chat/completions", {
      model: "echo",
      messages: [{ role: "user", content: "hi" }],
    }, { "x-llmgw-kb": "someone-elses" });
    assertEquals(other.status, 404);
    await other.body?.cancel();
    const plain = await post(s, "/chat/completions", {
      model: "echo",
      messages: [{ role: "user", content: "descaled?" }],
    });
    await plain.json();
    assertEquals(systemText(s.echo.seen.at(-1)!), "", "no header, no passages");
  } finally {
    await s.close();
  }
});

Deno.test("kb: the Responses API's file_search searches the collection and cites the file", async () => {
  const s = await setting();
  try {
    const col = await ok<{ data: { id: string }[] }>(
      s.h,
      { bearer: s.h.adminToken },
      "GET",
      "/api/v1/kb/collections",
    );
    const req = {
      model: "echo",
      input: "which printer jams on card stock?",
      tools: [{ type: "file_search", vector_store_ids: [col.data[0]!.id], max_num_results: 3 }],
      include: ["file_search_call.results"],
    };
    const res = await post(s, "/responses", req);
    const body = await res.json();
    assertEquals(res.status, 200, JSON.stringify(body));
    const [call, message] = body.output;
    assertEquals(call.type, "file_search_call");
    assertEquals(call.queries, ["which printer jams on card stock?"]);
    assert(call.results[0].text.includes("floor three"), JSON.stringify(call.results));
    assertEquals(call.results[0].filename, "office.md");
    const text = message.content[0];
    assertEquals(text.annotations[0].type, "file_citation");
    assertEquals(text.annotations[0].filename, "office.md");
    assertEquals(text.annotations[0].index, text.text.indexOf("[1]"));
    assert(systemText(s.echo.seen.at(-1)!).includes("floor three"));
    assertEquals(
      s.echo.seen.at(-1)!.tools,
      undefined,
      "the tool is the gateway's, not the model's",
    );
    const next = await post(s, "/responses", {
      ...req,
      input: "and the coffee machine?",
      previous_response_id: body.id,
    });
    const nextBody = await next.json();
    assertEquals(next.status, 200, JSON.stringify(nextBody));
    assert(systemText(s.echo.seen.at(-1)!).includes("200 cups"), "the next turn searched again");

    const stream = await post(s, "/responses", { ...req, stream: true, include: [] });
    const events = await stream.text();
    assert(events.includes('"type":"file_search_call"'), events.slice(0, 500));
    assert(events.includes('"results":null'), "results only when include asks");
    assert(events.includes('"type":"file_citation"'));
  } finally {
    await s.close();
  }
});

Deno.test("kb: a model alias carrying knowledge bases grounds chat in the key's own of those names", async () => {
  const s = await setting();
  try {
    const def = parseModel({
      name: "echo",
      source: "/models/echo.gguf",
      aliases: ["office-chat"],
      alias_knowledge_bases: { "office-chat": ["office", "not-here"] },
      profiles: [{ engine: "sim" }],
    });
    await s.h.deps.catalog.upsert({ name: "echo", engine: "sim", source: "", def: { ...def } });
    const res = await post(s, "/chat/completions", {
      model: "office-chat",
      messages: [{ role: "user", content: "what jams the printer?" }],
    });
    const body = await res.json();
    assertEquals(res.status, 200, JSON.stringify(body));
    assert(systemText(s.echo.seen.at(-1)!).includes("floor three"), "grounded through the alias");
    assertEquals(body.citations[0].document, "office.md");
    const plain = await post(s, "/chat/completions", {
      model: "echo",
      messages: [{ role: "user", content: "what jams the printer?" }],
    });
    assertEquals((await plain.json()).citations, undefined, "the model's own name carries none");
    assertThrows(
      () =>
        parseModel({
          name: "m",
          source: "/m.gguf",
          alias_knowledge_bases: { stray: ["office"] },
          profiles: [{ engine: "sim" }],
        }),
      AppError,
      "not one of the model's aliases",
    );
  } finally {
    await s.close();
  }
});
