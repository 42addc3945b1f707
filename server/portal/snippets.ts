/** Ready-to-paste editor and SDK settings, filled with this gateway's address and a model. */
import type { PortalKey } from "./i18n.ts";

export interface Snippet {
  title: PortalKey;
  text: string;
}

export function editorSnippets(origin: string, model: string, key: string): Snippet[] {
  const base = `${origin}/v1`;
  return [
    {
      title: "connect_continue",
      text: `name: llmgw
version: 1.0.0
schema: v1
models:
  - name: ${model} (llmgw)
    provider: openai
    model: ${model}
    apiBase: ${base}
    apiKey: ${key}
    roles: [chat, edit, apply]
`,
    },
    {
      // Cline's remote configuration (an organisation's, shared by its people): each person
      // enters their own key in Cline's panel, so none is written here.
      title: "connect_cline_remote",
      text: `${
        JSON.stringify(
          {
            providerSettings: {
              OpenAiCompatible: {
                models: [{ id: model, name: `${model} (llmgw)` }],
                openAiBaseUrl: base,
                openAiModelId: model,
              },
            },
          },
          null,
          2,
        )
      }
`,
    },
    {
      title: "connect_codex",
      text: `model = "${model}"
model_provider = "llmgw"

[model_providers.llmgw]
name = "llmgw"
base_url = "${base}"
env_key = "LLMGW_KEY"
wire_api = "responses"
`,
    },
    {
      // Claude Code speaks Anthropic's Messages API and appends /v1/messages to the base itself.
      title: "connect_claude_code",
      text: `${
        JSON.stringify(
          {
            env: { ANTHROPIC_BASE_URL: origin, ANTHROPIC_AUTH_TOKEN: key, ANTHROPIC_MODEL: model },
          },
          null,
          2,
        )
      }
`,
    },
    {
      title: "connect_python",
      text: `from openai import OpenAI

client = OpenAI(base_url="${base}", api_key="${key}")
stream = client.chat.completions.create(
    model="${model}",
    messages=[{"role": "user", "content": "Hello"}],
    stream=True,
)
for chunk in stream:
    print(chunk.choices[0].delta.content or "", end="", flush=True)
print()
`,
    },
    {
      title: "connect_typescript",
      text: `import OpenAI from "openai";

const client = new OpenAI({ baseURL: "${base}", apiKey: "${key}" });
const stream = await client.chat.completions.create({
  model: "${model}",
  messages: [{ role: "user", content: "Hello" }],
  stream: true,
});
for await (const chunk of stream) process.stdout.write(chunk.choices[0]?.delta?.content ?? "");
console.log();
`,
    },
    ...mcpSnippets(origin, key),
  ];
}

/**
 * The line that gives an editor or agent the tools granted to the key, over `/mcp`. The key is
 * sent as a header, never in the address, so it stays out of logs that record URLs.
 */
export function mcpSnippets(origin: string, key: string): Snippet[] {
  const url = `${origin}/mcp`;
  return [
    {
      title: "connect_mcp_vscode",
      text: `{
  "servers": {
    "llmgw": {
      "type": "http",
      "url": "${url}",
      "headers": { "Authorization": "Bearer ${key}" }
    }
  }
}
`,
    },
    {
      title: "connect_mcp_cli",
      text: `claude mcp add --transport http llmgw ${url} --header "Authorization: Bearer ${key}"
`,
    },
  ];
}
