import { assert, assertEquals } from "../../tests/assert.ts";
import { editorSnippets } from "./snippets.ts";

Deno.test("the keys page's snippets include the MCP line: /mcp, the key as a header", () => {
  const all = editorSnippets("https://gw.example", "demo", "sk-llmgw-abc");
  const mcp = all.filter((s) => s.title.startsWith("connect_mcp"));
  assertEquals(mcp.length, 2);
  for (const s of mcp) {
    assert(s.text.includes("https://gw.example/mcp"), s.text);
    assert(s.text.includes("Bearer sk-llmgw-abc"), s.text);
    assert(!s.text.includes("/mcp?"), "the key never rides in the address");
  }
});
