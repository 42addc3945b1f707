/**
 * /mcp behind several control planes: two real apps on one store (one clock), the SDK's client
 * sending each request to the next one in turn. The calls-per-minute limit and the breaker are
 * the cluster's, not each process's, and a session begun on one continues on the other.
 */
import { assert, assertEquals, assertMatch } from "../../tests/assert.ts";
import { type CompanyMcp, startCompanyMcp } from "../../tests/helpers/company_mcp.ts";
import type { Harness } from "../../tests/helpers/harness.ts";
import { startPlanes } from "../../tests/helpers/shared_store.ts";
import { skipNote } from "../../tests/helpers/skip.ts";
import { storeKinds } from "../../tests/helpers/stores.ts";
import { Client, StreamableHTTPClientTransport } from "./sdk.ts";

const token = "planes-company-token";

interface Sent {
  plane: number;
  session: string | null;
  method: string;
}

/** The SDK's client whose requests go to the planes in turn, each one's plane noted. */
async function roundRobin(planes: Harness[], key: string, sent: Sent[]): Promise<Client> {
  let next = 0;
  const transport = new StreamableHTTPClientTransport(new URL("http://llmgw.test/mcp"), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    fetch: async (input, init) => {
      const plane = next++ % planes.length;
      const req = new Request(input instanceof Request ? input : String(input), init);
      const body = req.method === "POST" ? await req.clone().text() : "";
      sent.push({
        plane,
        session: req.headers.get("mcp-session-id"),
        method: body ? (JSON.parse(body) as { method?: string }).method ?? "" : req.method,
      });
      return await planes[plane]!.app.request(req);
    },
  });
  const client = new Client({ name: "test", version: "1" });
  await client.connect(transport);
  return client;
}

const textOf = (r: unknown) =>
  (r as { content: { text?: string }[] }).content.map((x) => x.text ?? "").join("");

async function setUp(first: Harness, company: CompanyMcp, tokenFile: string) {
  for (const [name, path, rate] of [["jira", "/mcp", 3], ["down", "/broken", null]] as const) {
    const res = await first.admin("POST", "mcp/servers", {
      name,
      url: `${company.url}${path}`,
      headers: { Authorization: tokenFile },
      rate,
    });
    assertEquals(res.status, 201, await res.text());
  }
  const res = await first.admin("PATCH", "limits/global/global", { tools: ["jira.*", "down.*"] });
  assertEquals(res.status, 200, await res.text());
}

for (const kind of storeKinds) {
  Deno.test({
    name: `/mcp on two control planes: one rate, one breaker, one session [${kind.dialect}]${
      skipNote(kind.missing)
    }`,
    ignore: !!kind.missing,
    fn: async () => {
      const company = startCompanyMcp(token);
      const tokenFile = await Deno.makeTempFile({ prefix: "llmgw-mcp-token-" });
      await Deno.writeTextFile(tokenFile, token);
      const { planes, close } = await startPlanes(2, {
        kind,
        setUp: (first) => setUp(first, company, tokenFile),
      });
      try {
        const key = planes[0]!.key;
        const sent: Sent[] = [];
        const client = await roundRobin(planes, key, sent);

        // A session begun on one plane goes on on the other: initialize on A, the rest on B, A, ...
        const listed = (await client.listTools()).tools.map((t) => t.name);
        assert(listed.includes("jira.search"), listed.join());
        assertEquals(sent[0]!.method, "initialize");
        const session = sent[1]?.session;
        assert(session, "the session id handed out at initialize is sent after it");
        assertEquals(new Set(sent.map((s) => s.plane)), new Set([0, 1]), "both planes answered");
        assert(
          sent.slice(1).every((s) => s.session === session),
          "one session throughout, whichever plane answers",
        );

        // Calls per minute: three of them spread over both planes, then none on either.
        for (let i = 0; i < 3; i++) {
          const ok = await client.callTool({ name: "jira.search", arguments: { query: `q${i}` } });
          assertEquals(textOf(ok), `found: q${i}`);
        }
        const planesCalled = new Set(
          sent.filter((s) => s.method === "tools/call").map((s) => s.plane),
        );
        assertEquals(planesCalled.size, 2, "the calls went to both planes");
        for (let i = 0; i < 2; i++) {
          const limited = await client.callTool({ name: "jira.search", arguments: { query: "q" } });
          assertMatch(textOf(limited), /Rate limit reached/, `refusal ${i + 1}`);
        }

        // The breaker: five failures in a row, spread over both planes, take it out on both.
        for (let i = 0; i < 4; i++) {
          const r = await client.callTool({ name: "down.anything", arguments: {} });
          assertMatch(textOf(r), /failed/);
        }
        const hits = company.hits;
        for (let i = 0; i < 2; i++) {
          const out = await client.callTool({ name: "down.anything", arguments: {} });
          assertMatch(textOf(out), /is out after repeated failures/, `on plane ${i}`);
        }
        assertEquals(company.hits, hits, "neither plane calls a server that is out");
        for (let i = 0; i < planes.length; i++) {
          const names = (await client.listTools()).tools.map((t) => t.name);
          assert(!names.some((n) => n.startsWith("down.")), `listed on a plane: ${names}`);
        }
        planes[0]!.clock.advance(61_000);
        const back = await client.callTool({ name: "jira.search", arguments: { query: "again" } });
        assertEquals(textOf(back), "found: again", "a new minute, calls again");
        await client.close();
      } finally {
        await close();
        await company.close();
        await Deno.remove(tokenFile);
      }
    },
  });
}
