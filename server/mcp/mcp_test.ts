/**
 * /mcp through the front door: the SDK's own client against the app, and a company MCP server
 * (the same SDK, on a real port) registered behind it through the admin API.
 */
import { assert, assertEquals, assertMatch } from "../../tests/assert.ts";
import { type Harness, startHarness } from "../../tests/helpers/harness.ts";
import { type CompanyMcp, startCompanyMcp } from "../../tests/helpers/company_mcp.ts";
import { Client, type Progress, StreamableHTTPClientTransport } from "./sdk.ts";

const token = "sekret-company-token-42";

interface World {
  h: Harness;
  company: CompanyMcp;
  tokenFile: string;
  keyId: string;
  close(): Promise<void>;
}

async function world(opts: { mcpCallTimeoutMs?: number } = {}): Promise<World> {
  const h = await startHarness(opts);
  const company = startCompanyMcp(token);
  const tokenFile = await Deno.makeTempFile({ prefix: "llmgw-mcp-token-" });
  await Deno.writeTextFile(tokenFile, `${token}\n`);
  const keyId = (await h.deps.keys.list())[0]!.id;
  return {
    h,
    company,
    tokenFile,
    keyId,
    async close() {
      await company.close();
      await h.close();
      await Deno.remove(tokenFile);
    },
  };
}

/** The SDK's client, talking to the app in-process with the harness's key. */
async function connect(h: Harness, key = h.key): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL("http://llmgw.test/mcp"), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    fetch: async (input, init) =>
      await h.app.request(input instanceof Request ? input : String(input), init),
  });
  const client = new Client({ name: "test", version: "1" });
  await client.connect(transport);
  return client;
}

async function register(w: World, name: string, path: string, extra: object = {}) {
  const res = await w.h.admin("POST", "mcp/servers", {
    name,
    url: `${w.company.url}${path}`,
    headers: { Authorization: w.tokenFile },
    ...extra,
  });
  assertEquals(res.status, 201, await res.clone().text());
  return await res.json();
}

async function grant(w: World, tools: string[] | null) {
  const res = await w.h.admin("PATCH", `limits/key/${w.keyId}`, { tools });
  assertEquals(res.status, 200);
}

const names = async (c: Client) => (await c.listTools()).tools.map((t) => t.name).sort();
const textOf = (r: unknown) =>
  (r as { content: { text?: string }[] }).content.map((x) => x.text ?? "").join("");

Deno.test("/mcp: a key sees no tool until one is granted, then only those granted", async () => {
  const w = await world();
  try {
    await register(w, "jira", "/mcp", { tools: ["search", "slow"] });
    const client = await connect(w.h);
    assertEquals(await names(client), [], "none granted anywhere means none");
    assertEquals(w.company.hits, 0, "nothing granted: the company server is not even asked");

    await grant(w, ["jira.*"]);
    assertEquals(await names(client), ["jira.search", "jira.slow"], "narrowed at registration");

    await grant(w, null);
    const global = await w.h.admin("PATCH", "limits/global/global", { tools: ["llmgw.*"] });
    assertEquals(global.status, 200);
    const own = await names(client);
    assert(own.includes("llmgw.cluster_status") && own.includes("llmgw.my_usage"), own.join());
    assert(own.every((n) => n.startsWith("llmgw.")), own.join());
    const status = await client.callTool({ name: "llmgw.cluster_status", arguments: {} });
    assertEquals((status.structuredContent as { models: number }).models, 2);

    const refused = await client.callTool({ name: "jira.search", arguments: { query: "x" } })
      .then(() => "answered", (e: Error) => e.message);
    assertMatch(refused, /No tool 'jira.search'/);
    await client.close();
  } finally {
    await w.close();
  }
});

Deno.test("/mcp: a call reaches the company server with the caller named, audited by digest", async () => {
  const w = await world();
  try {
    const registered = await register(w, "jira", "/mcp");
    assertEquals(registered.shared_credential, true);
    assertMatch(registered.note, /every key granted/);
    await grant(w, ["jira.search"]);
    const client = await connect(w.h);
    const args = { query: "printer on fire PROJ-7" };
    const res = await client.callTool({ name: "jira.search", arguments: args });
    assertEquals(textOf(res), "found: printer on fire PROJ-7");
    assertEquals(w.company.seen.at(-1)!.get("x-llmgw-key-id"), w.keyId);

    const rows = await w.h.people.audit.list({ target: "jira.search" });
    assertEquals(rows.length, 1);
    const after = rows[0]!.after as Record<string, unknown>;
    const bytes = new TextEncoder().encode(JSON.stringify(args));
    const digest = [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))]
      .map((b) => b.toString(16).padStart(2, "0")).join("");
    assertEquals(after.argumentsBytes, bytes.byteLength);
    assertEquals(after.argumentsSha256, digest);
    assertEquals(after.outcome, "ok");
    assertEquals(rows[0]!.actorId, w.keyId);
    assert(!JSON.stringify(rows[0]).includes("printer"), "the arguments' text is never audited");
    await client.close();
  } finally {
    await w.close();
  }
});

Deno.test("/mcp: progress passes through, and a slow server is cut at the bound", async () => {
  const w = await world({ mcpCallTimeoutMs: 800 });
  try {
    await register(w, "jira", "/mcp");
    await grant(w, ["jira.*"]);
    const client = await connect(w.h);
    const progress: Progress[] = [];
    const quick = await client.callTool({ name: "jira.slow", arguments: { ms: 10 } }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    assertEquals(textOf(quick), "done");
    assertEquals(progress.map((p) => p.message), ["started"]);

    const started = performance.now();
    const cut = await client.callTool({ name: "jira.slow", arguments: { ms: 5_000 } });
    const took = performance.now() - started;
    assertEquals(cut.isError, true);
    assertMatch(textOf(cut), /failed/);
    assert(took < 3_000, `cut after ${Math.round(took)} ms, bound 800`);
    await client.close();
  } finally {
    await w.close();
  }
});

Deno.test("/mcp: five failures in a row take a server out for a minute, tools and all", async () => {
  const w = await world();
  try {
    await register(w, "jira", "/mcp");
    await register(w, "down", "/broken");
    await grant(w, ["jira.*", "down.*"]);
    const client = await connect(w.h);
    // The broken server fails its listing (one failure); its tools cannot be listed anyway.
    assert((await names(client)).every((n) => n.startsWith("jira.")));
    for (let i = 0; i < 4; i++) {
      const r = await client.callTool({ name: "down.anything", arguments: {} });
      assertEquals(r.isError, true);
      assertMatch(textOf(r), /failed/);
    }
    const hits = w.company.hits;
    const out = await client.callTool({ name: "down.anything", arguments: {} });
    assertMatch(textOf(out), /is out after repeated failures/);
    assertEquals(w.company.hits, hits, "an open breaker does not call the server");
    assert((await names(client)).includes("jira.search"), "other servers are unaffected");
    assertEquals(w.company.hits, hits, "the broken one is not listed (and jira's list is cached)");

    w.h.clock.advance(61_000);
    const back = await client.callTool({ name: "down.anything", arguments: {} });
    assertMatch(textOf(back), /failed/, "after its minute the server is tried again");
    await client.close();
  } finally {
    await w.close();
  }
});

Deno.test("/mcp: a per-minute rate per caller and server", async () => {
  const w = await world();
  try {
    await register(w, "jira", "/mcp", { rate: 2 });
    await grant(w, ["jira.*"]);
    const client = await connect(w.h);
    for (let i = 0; i < 2; i++) {
      const ok = await client.callTool({ name: "jira.search", arguments: { query: "q" } });
      assertEquals(ok.isError, undefined);
    }
    const limited = await client.callTool({ name: "jira.search", arguments: { query: "q" } });
    assertEquals(limited.isError, true);
    assertMatch(textOf(limited), /Rate limit reached/);
    w.h.clock.advance(60_001);
    const again = await client.callTool({ name: "jira.search", arguments: { query: "q" } });
    assertEquals(textOf(again), "found: q");
    await client.close();
  } finally {
    await w.close();
  }
});

Deno.test("/mcp: the credential never reaches the client, the admin API or the audit trail", async () => {
  const w = await world();
  try {
    const registered = await register(w, "leak", "/leaky");
    await register(w, "jira", "/mcp");
    await grant(w, ["leak.*", "jira.*"]);
    const seen: string[] = [JSON.stringify(registered)];
    const transport = new StreamableHTTPClientTransport(new URL("http://llmgw.test/mcp"), {
      requestInit: { headers: { authorization: `Bearer ${w.h.key}` } },
      fetch: async (input, init) => {
        const res = await w.h.app.request(
          input instanceof Request ? input : String(input),
          init,
        );
        seen.push(await res.clone().text(), JSON.stringify([...res.headers]));
        return res;
      },
    });
    const client = new Client({ name: "test", version: "1" });
    await client.connect(transport);
    await client.listTools();
    const leaked = await client.callTool({ name: "leak.anything", arguments: {} });
    assertEquals(leaked.isError, true);
    assertMatch(textOf(leaked), /<secret>/, "the server's echo is scrubbed");
    await client.callTool({ name: "jira.search", arguments: { query: "q" } });
    seen.push(await (await w.h.admin("GET", "mcp/servers")).text());
    seen.push(JSON.stringify(await w.h.people.audit.list({})));
    for (const text of seen) assert(!text.includes(token), `credential in: ${text.slice(0, 200)}`);
    assert(!seen.some((t) => t.includes(w.tokenFile)), "nor where it is read from");
    assertEquals(w.company.seen.at(-1)!.get("authorization"), `Bearer ${token}`);

    // A credential file gone: the call fails without telling the caller where it was.
    await Deno.remove(w.tokenFile);
    const gone = await client.callTool({ name: "jira.search", arguments: { query: "q" } });
    assertEquals(gone.isError, true);
    assertMatch(textOf(gone), /cannot be read on the control plane/);
    assert(!textOf(gone).includes(w.tokenFile), textOf(gone));
    await Deno.writeTextFile(w.tokenFile, token);
    await client.close();
  } finally {
    await w.close();
  }
});

Deno.test("/mcp: keys only; the session header is bound to the key", async () => {
  const w = await world();
  try {
    const none = await w.h.app.request("/mcp", { method: "POST", body: "{}" });
    assertEquals(none.status, 401);
    const init = await w.h.app.request("/mcp", {
      method: "POST",
      headers: {
        authorization: `Bearer ${w.h.key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "t", version: "1" },
        },
      }),
    });
    assertEquals(init.status, 200);
    const session = init.headers.get("mcp-session-id");
    assert(session, "a session id is handed out at initialize");
    await init.body?.cancel();
    const other = await w.h.deps.keys.create({ name: "other" });
    const stolen = await w.h.app.request("/mcp", {
      method: "POST",
      headers: {
        authorization: `Bearer ${other.key}`,
        "mcp-session-id": session,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    assertEquals(stolen.status, 404, "another key's session is not found");
    await stolen.body?.cancel();
  } finally {
    await w.close();
  }
});

Deno.test("admin API: an address with a password is refused", async () => {
  const w = await world();
  try {
    const res = await w.h.admin("POST", "mcp/servers", {
      name: "jira",
      url: "https://bot:hunter2@jira.example/mcp",
    });
    assertEquals(res.status, 400);
    const body = await res.text();
    assertMatch(body, /may not carry a user or password/);
    assert(!body.includes("hunter2"));
  } finally {
    await w.close();
  }
});
