/**
 * Each editor snippet the portal gives is parsed in its tool's own format and checked against
 * what that tool reads today: Codex's config.toml (a TOML parser: Python's tomllib, in a real
 * child process), Continue's config YAML, Claude Code's settings.json.
 */
import { parse as parseYaml } from "yaml";
import { assert, assertEquals } from "../../tests/assert.ts";
import { skipNote } from "../../tests/helpers/skip.ts";
import { editorSnippets } from "./snippets.ts";

const origin = "https://llmgw.example";
const key = "sk-llmgw-secret-0123456789";
const snippets = editorSnippets(origin, "qwen3", key);
const snippet = (title: string) => {
  const s = snippets.find((x) => x.title === title);
  if (!s) throw new Error(`no snippet ${title}`);
  return s.text;
};

async function parseToml(text: string): Promise<Record<string, unknown>> {
  const child = new Deno.Command("python3", {
    args: ["-c", "import json,sys,tomllib; print(json.dumps(tomllib.loads(sys.stdin.read())))"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  const out = await child.output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

function noTomlParser(): string | undefined {
  try {
    const out = new Deno.Command("python3", { args: ["-c", "import tomllib"] }).outputSync();
    return out.success ? undefined : "python3 has no tomllib (3.11+)";
  } catch {
    return "no python3 to parse TOML";
  }
}

const tomlWhy = noTomlParser();

Deno.test({
  name: `Codex: config.toml with a responses provider, the key only from the environment${
    skipNote(tomlWhy)
  }`,
  ignore: !!tomlWhy,
  async fn() {
    const text = snippet("connect_codex");
    const cfg = await parseToml(text);
    assertEquals(cfg.model, "qwen3");
    assertEquals(cfg.model_provider, "llmgw");
    const providers = cfg.model_providers as Record<string, Record<string, unknown>>;
    const p = providers.llmgw!;
    // Current Codex refuses wire_api "chat"; it appends /responses to base_url.
    assertEquals(p.wire_api, "responses");
    assertEquals(p.base_url, `${origin}/v1`);
    assertEquals(p.env_key, "LLMGW_KEY");
    assert(!("profiles" in cfg), "profiles tables are gone from config.toml");
    assert(!text.includes(key), "the key is never written into the file");
  },
});

Deno.test("Continue: a config YAML with an openai provider at the gateway", () => {
  const cfg = parseYaml(snippet("connect_continue")) as Record<string, unknown>;
  assertEquals(cfg.schema, "v1");
  assert(typeof cfg.name === "string" && typeof cfg.version === "string");
  const [m] = cfg.models as Record<string, unknown>[];
  assertEquals(m!.provider, "openai");
  assertEquals(m!.model, "qwen3");
  assertEquals(m!.apiBase, `${origin}/v1`);
  assertEquals(m!.apiKey, key);
  assert((m!.roles as string[]).includes("chat"));
});

Deno.test("Cline: a remote configuration whose OpenAI Compatible provider is the gateway, no key in it", () => {
  const text = snippet("connect_cline_remote");
  const cfg = JSON.parse(text);
  // Cline's documented fields: models (id, name), openAiBaseUrl, openAiModelId, openAiApiKey.
  assertEquals(Object.keys(cfg), ["providerSettings"]);
  const p = cfg.providerSettings.OpenAiCompatible;
  assertEquals(p.openAiBaseUrl, `${origin}/v1`, "Cline appends /chat/completions to it");
  assertEquals(p.openAiModelId, "qwen3");
  assertEquals(p.models, [{ id: "qwen3", name: "qwen3 (llmgw)" }]);
  const known = new Set(["models", "openAiBaseUrl", "openAiApiKey", "openAiModelId"]);
  assert(Object.keys(p).every((k) => known.has(k)), Object.keys(p).join());
  assert(
    !("openAiApiKey" in p) && !text.includes(key),
    "an organisation's file holds no one's key",
  );
});

Deno.test("Claude Code: settings.json env naming the gateway's Messages API", () => {
  const cfg = JSON.parse(snippet("connect_claude_code"));
  // Claude Code adds /v1/messages itself: the base is the origin.
  assertEquals(cfg.env, {
    ANTHROPIC_BASE_URL: origin,
    ANTHROPIC_AUTH_TOKEN: key,
    ANTHROPIC_MODEL: "qwen3",
  });
});

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
