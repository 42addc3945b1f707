/**
 * The MCP gateway from a terminal to an agent: `ctl mcp add` and `ctl limits set --tools`
 * against a running appliance, then the SDK's client at its /mcp with a key made by ctl.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { selfCommand, selfCommandEnv } from "../../core/self_command.ts";
import { startAppliance } from "../helpers/appliance.ts";
import { startCompanyMcp } from "../helpers/company_mcp.ts";
import { Client, StreamableHTTPClientTransport } from "../../server/mcp/sdk.ts";

async function ctl(args: string[]) {
  const { cmd, args: full } = selfCommand(["ctl", ...args]);
  const out = await new Deno.Command(cmd, { args: full, env: selfCommandEnv() }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

Deno.test({
  name: "ctl mcp add and limits --tools put a company server's tools behind /mcp",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const token = "company-bearer-9f2c";
    const company = startCompanyMcp(token);
    const app = await startAppliance();
    const tokenFile = await Deno.makeTempFile({ prefix: "llmgw-mcp-e2e-" });
    try {
      await Deno.writeTextFile(tokenFile, token);
      const base = ["--data", app.dataDir, "--url", app.url];
      const refused = await ctl(["mcp", "add", "bad", "https://u:pw@x.example/", ...base]);
      assertEquals(refused.code, 1, refused.stdout + refused.stderr);
      assertMatch(refused.stderr, /may not carry a user or password/);

      const added = await ctl([
        "mcp",
        "add",
        "jira",
        `${company.url}/mcp`,
        "--bearer-file",
        tokenFile,
        "--header-file",
        `X-Team=${tokenFile}`,
        "--rate",
        "30",
        "--tools",
        "search",
        ...base,
      ]);
      assertEquals(added.code, 0, added.stderr);
      assertMatch(added.stdout, /headers sent: Authorization, X-Team/);
      assertMatch(added.stdout, /every key granted/);
      assertMatch(added.stdout, /acts as: one shared service account/);
      assert(!added.stdout.includes(token));
      const own = await ctl([
        "mcp",
        "add",
        "wiki",
        `${company.url}/wiki`,
        "--auth",
        "oauth",
        ...base,
      ]);
      assertEquals(own.code, 0, own.stderr);
      assertMatch(own.stdout, /acts as: each person's own account/);
      assert(!own.stdout.includes("every key granted"), "no shared account, no warning");

      const granted = await ctl(["limits", "set", "--global", "--tools", "jira.*", ...base]);
      assertEquals(granted.code, 0, granted.stderr);
      const created = await ctl(["keys", "create", "--name", "agent", "--json", ...base]);
      assertEquals(created.code, 0, created.stderr);
      const key = JSON.parse(created.stdout).key as string;

      const client = new Client({ name: "agent", version: "1" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${key}` } },
        }),
      );
      assertEquals((await client.listTools()).tools.map((t) => t.name), ["jira.search"]);
      const res = await client.callTool({ name: "jira.search", arguments: { query: "VPN" } });
      assertEquals((res.content as { text: string }[])[0]!.text, "found: VPN");
      assertEquals(company.seen.at(-1)!.get("x-team"), token);
      await client.close();

      const listed = await ctl(["mcp", "list", ...base]);
      assertEquals(listed.code, 0, listed.stderr);
      assertMatch(listed.stdout, /jira/);
      assertMatch(listed.stdout, /oauth/);
      const removed = await ctl(["mcp", "remove", "jira", ...base]);
      assertEquals(removed.code, 0, removed.stderr);
    } finally {
      assertEquals(await app.stop(), 0);
      const log = app.output();
      await company.close();
      await Deno.remove(app.dataDir, { recursive: true });
      await Deno.remove(tokenFile);
      assertEquals(log.includes(token), false, "the credential is never logged");
    }
  },
});
