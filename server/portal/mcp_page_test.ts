/**
 * The portal's MCP servers page (/admin/mcp): an administrator adds a server with a shared
 * credential, narrows it, sees the warning and never the credential or its file, and removes
 * it; an operator reads it without the forms; a member does not find it.
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { startHarness } from "../../tests/helpers/harness.ts";
import { portalBrowser } from "../../tests/helpers/portal_browser.ts";
import { buildApp } from "../wiring/app.ts";

const password = "correct horse battery staple";

Deno.test("portal /admin/mcp: add, narrow, warn of a shared credential, remove; staff only", async () => {
  const h = await startHarness();
  const tokenFile = await Deno.makeTempFile({ prefix: "llmgw-mcp-page-" });
  try {
    await Deno.writeTextFile(tokenFile, "page-secret-token-77");
    const app = buildApp({ ...h.deps, portal: { publicUrl: "" } });
    for (const [username, role] of [["root", "administrator"], ["opal", "operator"]]) {
      const made = await h.admin("POST", "people", { username, role, password });
      assertEquals(made.status, 201, await made.text());
    }
    const browser = portalBrowser(app, password);
    const root = await browser.signIn("root");
    const form = {
      name: "jira",
      url: "http://127.0.0.1:9/mcp",
      auth: "headers",
      bearer_file: tokenFile,
      tools: "search, get_*",
      rate: "30",
    };
    const added = await browser.post("/admin/mcp", root, {
      _csrf: await browser.csrfOf("/admin/mcp", root),
      ...form,
    });
    const page = await added.text();
    assertEquals(added.status, 200, page);
    assert(page.includes("Saved the MCP server jira."), page);
    assert(
      page.includes("every key granted jira&#39;s tools acts with that account&#39;s rights") ||
        page.includes("every key granted jira's tools acts with that account's rights"),
      page,
    );
    assert(page.includes("search, get_*"), "the narrowing is shown");
    assert(!page.includes("page-secret-token-77") && !page.includes(tokenFile), "no credential");
    const saved = await h.deps.mcp.servers.get("jira");
    assertEquals(saved?.tools, ["search", "get_*"]);
    assertEquals(saved?.rate, 30);

    // Narrowed further on its row: the credential file and the rate are kept.
    const narrowed = await browser.post("/admin/mcp/jira/tools", root, {
      _csrf: await browser.csrfOf("/admin/mcp", root),
      tools: "search",
    });
    assert((await narrowed.text()).includes("Saved the MCP server jira."));
    const now = await h.deps.mcp.servers.get("jira");
    assertEquals(now?.tools, ["search"]);
    assertEquals(now?.headers, { Authorization: tokenFile });
    assertEquals(now?.rate, 30);

    const opal = await browser.signIn("opal");
    const read = await (await browser.get("/admin/mcp", opal)).text();
    assert(read.includes("jira") && !read.includes('action="/admin/mcp'), "an operator reads");
    const refused = await browser.post("/admin/mcp/jira/remove", opal, {
      _csrf: await browser.csrfOf("/admin/mcp", opal),
    });
    assert((await refused.text()).includes("jira"));
    assert(await h.deps.mcp.servers.get("jira"), "an operator cannot remove it");

    const removed = await browser.post("/admin/mcp/jira/remove", root, {
      _csrf: await browser.csrfOf("/admin/mcp", root),
    });
    assert((await removed.text()).includes("Removed the MCP server jira."));
    assertEquals(await h.deps.mcp.servers.get("jira"), undefined);

    const audit = await h.people.audit.list({});
    assert(audit.some((r) => r.action === "mcp_server.add"), "changes go through the admin API");
    assert(!JSON.stringify(audit).includes("page-secret-token-77"));

    const made = await h.admin("POST", "people", { username: "mo", role: "member", password });
    assertEquals(made.status, 201);
    const mo = await browser.signIn("mo");
    assertEquals((await browser.get("/admin/mcp", mo)).status, 404, "members: not an admin page");
    assertEquals((await browser.get("/tools", mo)).status, 200, "but the tools page is theirs");
  } finally {
    await h.close();
    await Deno.remove(tokenFile);
  }
});
