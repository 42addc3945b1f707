/**
 * Per-person credentials through the front door: a company MCP server registered as `oauth`
 * (a fake authorization server and an SDK resource server, tests/helpers/oauth_mcp.ts), a member
 * calling it over /mcp with the SDK's client, and the authorisation driven through the portal
 * with fetch as a browser would follow its redirects.
 */
import { mcpPersonTokens, mcpServers } from "../../db/schema.ts";
import { assert, assertEquals, assertMatch } from "../../tests/assert.ts";
import { type Harness, startHarness } from "../../tests/helpers/harness.ts";
import { startOAuthMcp } from "../../tests/helpers/oauth_mcp.ts";
import { makeTenant, ok, signIn, type Tenant } from "../../tests/helpers/tenants.ts";
import { buildApp } from "../wiring/app.ts";
import { Client, StreamableHTTPClientTransport } from "./sdk.ts";

const textOf = (r: unknown) =>
  (r as { content: { text?: string }[] }).content.map((x) => x.text ?? "").join("");

/** The SDK's client on the app with `key`, every answer's text kept in `seen`. */
async function connect(app: ReturnType<typeof buildApp>, key: string, seen: string[]) {
  const transport = new StreamableHTTPClientTransport(new URL("http://localhost/mcp"), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    fetch: async (input, init) => {
      const res = await app.request(input instanceof Request ? input : String(input), init);
      seen.push(await res.clone().text(), JSON.stringify([...res.headers]));
      return res;
    },
  });
  const client = new Client({ name: "test", version: "1" });
  await client.connect(transport);
  return client;
}

const cookieOf = (t: Tenant["member"]) => (t.cred as { cookie: string }).cookie;

/** The portal's authorise link followed as a browser would: out to the server and back. */
async function authorise(app: ReturnType<typeof buildApp>, cookie: string) {
  const start = await app.request("/connect/mcp/wiki", { headers: { cookie } });
  assertEquals(start.status, 302, await start.clone().text());
  const out = new URL(start.headers.get("location")!);
  const back = await fetch(out, { redirect: "manual" });
  assertEquals(back.status, 302, await back.clone().text());
  const to = new URL(back.headers.get("location")!);
  return {
    out,
    to,
    done: await app.request(`${to.pathname}${to.search}`, { headers: { cookie } }),
  };
}

async function setUp() {
  const h: Harness = await startHarness();
  await Deno.writeTextFile(`${h.dataDir}/cluster.secret`, "a-cluster-secret-for-this-test\n");
  const wiki = startOAuthMcp();
  const app = buildApp({ ...h.deps, portal: { publicUrl: "" } });
  const t = await makeTenant(h, "acme");
  const root = { bearer: h.adminToken };
  const registered = await ok<{ auth: string; shared_credential: boolean; note: string | null }>(
    h,
    root,
    "POST",
    "/api/v1/mcp/servers",
    { name: "wiki", url: wiki.url, auth: "oauth" },
  );
  assertEquals(registered.auth, "oauth");
  assertEquals(registered.shared_credential, false, "no shared account: no warning");
  await ok(h, root, "PATCH", `/api/v1/limits/global/global`, { tools: ["wiki.*"] });
  return {
    h,
    wiki,
    app,
    t,
    async close() {
      await wiki.close();
      await h.close();
    },
  };
}

Deno.test("an oauth server: each person authorises once in the portal, then calls as themself", async () => {
  const { h, wiki, app, t, close } = await setUp();
  try {
    const seen: string[] = [];
    const client = await connect(app, t.member.key, seen);

    // Not authorised yet: the list says how, and a call says where, as an MCP tool error.
    const before = (await client.listTools()).tools;
    assertEquals(before.map((x) => x.name), ["wiki.authorize"]);
    assertMatch(before[0]!.description ?? "", /http:\/\/localhost\/connect\/mcp\/wiki/);
    const refused = await client.callTool({ name: "wiki.whoami", arguments: {} });
    assertEquals(refused.isError, true);
    assertMatch(
      textOf(refused),
      /acts for each person with their own account: authorise it once at http:\/\/localhost\/connect\/mcp\/wiki/,
    );
    assertEquals(wiki.callers, [], "nothing reached the server without the person's token");

    wiki.user = t.member.id;
    const { out, to, done } = await authorise(app, cookieOf(t.member));
    assertEquals(out.origin, wiki.issuer, "the person is sent to the authorization server");
    assertEquals(out.searchParams.get("code_challenge_method"), "S256");
    assertEquals(out.searchParams.get("resource"), wiki.url);
    assertEquals(out.searchParams.get("redirect_uri"), "http://localhost/connect/mcp-callback");
    assertEquals(to.pathname, "/connect/mcp-callback", "and back to the portal");
    const page = await done.text();
    assertEquals(done.status, 200, page);
    assert(page.includes("Authorised wiki"), page);
    assertEquals(wiki.registrations, 1, "the gateway registered itself as the client");

    const after = (await client.listTools()).tools.map((x) => x.name);
    assertEquals(after, ["wiki.whoami"]);
    const me = await client.callTool({ name: "wiki.whoami", arguments: {} });
    assertEquals(textOf(me), `you are ${t.member.id}`);
    assertEquals(wiki.callers.at(-1), t.member.id, "the call carried the person's own token");

    // Expired: refreshed on the next call, and the person is not asked again.
    h.clock.advance(wiki.expiresIn * 1000);
    const again = await client.callTool({ name: "wiki.whoami", arguments: {} });
    assertEquals(textOf(again), `you are ${t.member.id}`);
    assertEquals(wiki.refreshes, 1);

    // The tokens never reach the client, the admin API, the audit trail or the store in clear.
    seen.push(await (await h.admin("GET", "mcp/servers")).text());
    seen.push(JSON.stringify(await h.people.audit.list({})));
    seen.push(JSON.stringify(await h.store.db.select().from(mcpPersonTokens)));
    seen.push(JSON.stringify(await h.store.db.select().from(mcpServers)));
    seen.push(page);
    assert(wiki.issued.length >= 4);
    for (const token of wiki.issued) {
      for (const text of seen) assert(!text.includes(token), `a token in: ${text.slice(0, 200)}`);
    }
    const rows = await h.store.db.select().from(mcpPersonTokens);
    assertEquals(rows.map((r) => r.userId), [t.member.id]);
    assertMatch(rows[0]!.sealed, /^v1\./);

    // Revoked at the server: the person is asked to authorise again; the server is not "down".
    wiki.revoked = true;
    for (let i = 0; i < 6; i++) {
      const r = await client.callTool({ name: "wiki.whoami", arguments: {} });
      assertMatch(textOf(r), /authorise it once at/, `call ${i + 1}`);
    }
    assertEquals(await h.store.db.select().from(mcpPersonTokens), [], "the dead token is gone");
    wiki.revoked = false;
    // Signed in afresh: the clock moved past the portal session's idle time.
    const fresh = await signIn(h, "mel@acme.example", "correct horse battery staple");
    assertEquals((await authorise(app, (fresh as { cookie: string }).cookie)).done.status, 200);
    assertEquals(
      textOf(await client.callTool({ name: "wiki.whoami", arguments: {} })),
      `you are ${t.member.id}`,
      "no breaker opened",
    );
    await client.close();
  } finally {
    await close();
  }
});

Deno.test("an oauth authorisation is the person's: another's redirect is refused, forgetting ends it", async () => {
  const { app, t, wiki, close } = await setUp();
  try {
    wiki.user = t.member.id;
    const start = await app.request("/connect/mcp/wiki", {
      headers: { cookie: cookieOf(t.member) },
    });
    const back = await fetch(new URL(start.headers.get("location")!), { redirect: "manual" });
    const to = new URL(back.headers.get("location")!);
    // A link passed on: the viewer opens the member's redirect; nothing is stored for anyone.
    const stolen = await app.request(`${to.pathname}${to.search}`, {
      headers: { cookie: (t.viewer.cred as { cookie: string }).cookie },
    });
    assertMatch(await stolen.text(), /not yours or has expired/);
    const seen: string[] = [];
    const client = await connect(app, t.member.key, seen);
    assertEquals((await client.listTools()).tools.map((x) => x.name), ["wiki.authorize"]);

    const { done } = await authorise(app, cookieOf(t.member));
    assertEquals(done.status, 200);
    const tools = await (await app.request("/tools", { headers: { cookie: cookieOf(t.member) } }))
      .text();
    assert(tools.includes("Forget my authorisation"), tools);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(tools)![1]!;
    const forgot = await app.request("/tools/wiki/forget", {
      method: "POST",
      headers: {
        cookie: cookieOf(t.member),
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ _csrf: csrf }),
    });
    assertMatch(await forgot.text(), /wiki no longer acts for you/);
    const r = await client.callTool({ name: "wiki.whoami", arguments: {} });
    assertMatch(textOf(r), /authorise it once at/);
    await client.close();
  } finally {
    await close();
  }
});
