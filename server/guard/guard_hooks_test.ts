/**
 * Every way a text reaches a model goes through the guardrails: the Responses API (its input
 * items and instructions, its answer whole and streamed), /v1/completions, batch lines and MCP
 * tool calls (arguments out, answers back). Through the real app, an echo engine and a company
 * MCP server on real ports.
 */
import OpenAI, { toFile } from "openai";
import { assert, assertEquals, assertMatch } from "../../tests/assert.ts";
import { type Harness, startHarness } from "../../tests/helpers/harness.ts";
import { addReplica } from "../../tests/helpers/routing.ts";
import { type EchoEngine, startEchoEngine } from "../../tests/helpers/echo_engine.ts";
import { startCompanyMcp } from "../../tests/helpers/company_mcp.ts";
import { dispatchDeps } from "../wiring/app.ts";
import { BatchRunner } from "../batches/batch_runner.ts";
import { Client, StreamableHTTPClientTransport } from "../mcp/sdk.ts";

const global = { kind: "global", id: "global" };

async function withEcho(
  fn: (h: Harness, e: EchoEngine) => Promise<void>,
  storePath?: string,
): Promise<void> {
  const h = await startHarness(storePath ? { storePath } : {});
  const e = startEchoEngine();
  try {
    h.deps.replicas.remove("r1");
    addReplica(h, "echo", e.url);
    await fn(h, e);
  } finally {
    await h.close();
    await e.close();
  }
}

async function putPolicy(h: Harness, name: string, body: unknown) {
  const res = await h.admin("PUT", `guard/policies/${name}`, body);
  assertEquals(res.status, 201, await res.text());
}

const codename = (applyTo: string) => ({
  scope: global,
  apply_to: applyTo,
  rules: [
    { name: "codename", kind: "literal", action: "block", literals: ["falcon"] },
    { name: "mail", kind: "pii", action: "redact", types: ["email"] },
  ],
});

async function blockedBy(res: Response, rule: string): Promise<void> {
  const body = await res.json();
  assertEquals(res.status, 400, JSON.stringify(body));
  assertEquals(body.error.code, "guardrail_blocked");
  assert(body.error.message.includes(`'${rule}'`), body.error.message);
}

Deno.test("Responses API input: instructions, messages and function-call outputs are checked", async () => {
  await withEcho(async (h, e) => {
    await putPolicy(h, "base", codename("input"));
    await blockedBy(
      await h.v1("/responses", { model: "demo", instructions: "codename falcon", input: "hi" }),
      "codename",
    );
    await blockedBy(
      await h.v1("/responses", {
        model: "demo",
        input: [
          { type: "message", role: "user", content: "look it up" },
          { type: "function_call", call_id: "c1", name: "lookup", arguments: "{}" },
          { type: "function_call_output", call_id: "c1", output: "the falcon file" },
        ],
      }),
      "codename",
    );
    assertEquals(e.seen.length, 0, "nothing blocked reached the model");
    const ok = await h.v1("/responses", {
      model: "demo",
      input: [{ type: "message", role: "user", content: "write to ana@example.com" }],
    });
    assertEquals(ok.status, 200, await ok.clone().text());
    assertEquals(JSON.stringify(e.seen[0]!.messages).includes("ana@example.com"), false);
    assert(JSON.stringify(e.seen[0]!.messages).includes("[EMAIL_1]"));
  });
});

Deno.test("Responses API output: a whole answer is refused, a stream ends with a guardrail_blocked error event", async () => {
  await withEcho(async (h) => {
    await putPolicy(h, "answers", codename("output"));
    await blockedBy(await h.v1("/responses", { model: "demo", input: "say falcon" }), "codename");
    const res = await h.v1("/responses", { model: "demo", input: "say falcon", stream: true });
    const text = await res.text();
    assertMatch(text, /event: error\ndata: [^\n]*"code":"guardrail_blocked"/);
    assert(!text.includes("response.completed"), text);
  });
});

Deno.test("/v1/completions: every prompt of a list is checked, and the answer too", async () => {
  await withEcho(async (h) => {
    await putPolicy(h, "base", codename("both"));
    await blockedBy(
      await h.v1("/completions", { model: "demo", prompt: ["fine", "the falcon"], max_tokens: 3 }),
      "codename",
    );
  });
});

Deno.test("a batch line goes through the same guardrails: a blocked one lands in the error file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-guard-batch-" });
  try {
    await withEcho(async (h) => {
      await putPolicy(h, "base", codename("input"));
      const runner = new BatchRunner({
        store: h.deps.store,
        clock: h.deps.clock,
        logger: h.deps.logger,
        keys: h.deps.keys,
        files: h.deps.files,
        dispatch: dispatchDeps(h.deps),
        settings: h.deps.fileLimits,
        usage: h.deps.usage,
      });
      const openai = new OpenAI({
        baseURL: "http://llmgw.test/v1",
        apiKey: h.key,
        maxRetries: 0,
        fetch: async (url, init) => await h.app.request(String(url), init as RequestInit),
      });
      const line = (id: string, content: string) =>
        JSON.stringify({
          custom_id: id,
          method: "POST",
          url: "/v1/chat/completions",
          body: { model: "demo", messages: [{ role: "user", content }], max_tokens: 3 },
        });
      const input = await openai.files.create({
        file: await toFile(
          new TextEncoder().encode(line("ok", "hello") + "\n" + line("bad", "falcon") + "\n"),
          "in.jsonl",
        ),
        purpose: "batch",
      });
      const created = await openai.batches.create({
        input_file_id: input.id,
        endpoint: "/v1/chat/completions",
        completion_window: "24h",
      });
      runner.start(5);
      try {
        let b = created;
        for (let i = 0; i < 400 && b.status !== "completed"; i++) {
          await new Promise((r) => setTimeout(r, 50));
          b = await openai.batches.retrieve(created.id);
        }
        assertEquals(b.request_counts, { total: 2, completed: 1, failed: 1 });
        const errors = (await (await openai.files.content(b.error_file_id!)).text()).trim()
          .split("\n").map((l) => JSON.parse(l));
        assertEquals(errors.length, 1);
        assertEquals(errors[0].custom_id, "bad");
        assertEquals(errors[0].response.status_code, 400);
        assertEquals(errors[0].response.body.error.code, "guardrail_blocked");
      } finally {
        await runner.stop();
      }
    }, `${dir}/store.db`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("MCP: a tool call's arguments are checked before they leave, its answer as the prompt it becomes", async () => {
  const token = "company-token-7";
  const h = await startHarness();
  const company = startCompanyMcp(token);
  const tokenFile = await Deno.makeTempFile({ prefix: "llmgw-guard-mcp-" });
  try {
    await Deno.writeTextFile(tokenFile, token);
    const reg = await h.admin("POST", "mcp/servers", {
      name: "jira",
      url: `${company.url}/mcp`,
      headers: { Authorization: tokenFile },
    });
    assertEquals(reg.status, 201, await reg.text());
    const keyId = (await h.deps.keys.list())[0]!.id;
    assertEquals(
      (await h.admin("PATCH", `limits/key/${keyId}`, { tools: ["jira.*"] })).status,
      200,
    );
    await putPolicy(h, "base", codename("input"));
    const transport = new StreamableHTTPClientTransport(new URL("http://llmgw.test/mcp"), {
      requestInit: { headers: { authorization: `Bearer ${h.key}` } },
      fetch: async (input, init) =>
        await h.app.request(input instanceof Request ? input : String(input), init),
    });
    const client = new Client({ name: "test", version: "1" });
    await client.connect(transport);
    const call = (query: string) =>
      client.callTool({ name: "jira.search", arguments: { query } }).then(
        (r) => (r.isError ? "refused: " : "") + (r.content as { text: string }[])[0]!.text,
        (e: Error) => `refused: ${e.message}`,
      );

    const before = company.hits;
    const refused = await call("the falcon project");
    assertMatch(refused, /refused: .*'codename'/);
    assertEquals(company.hits, before, "blocked arguments never left");

    // Redacted on the way out: the company server answers with what it was sent.
    assertEquals(await call("mail ana@example.com"), "found: mail [EMAIL_1]");

    // The answer is checked too: a policy that refuses what the tool says.
    const answerRule = {
      scope: global,
      apply_to: "input",
      rules: [{ name: "found", kind: "literal", action: "block", literals: ["found:"] }],
    };
    await putPolicy(h, "answers", answerRule);
    const hits = company.hits;
    assertMatch(await call("anything"), /refused: .*'found'/);
    assert(company.hits > hits, "the arguments went out; the answer was stopped");
    await client.close();
  } finally {
    await company.close();
    await h.close();
    await Deno.remove(tokenFile);
  }
});
