/**
 * An engine that says back what it was told: the last user message as its answer, and (when the
 * request offers tools) a call of the first tool with `{"said": <that text>}` as its arguments.
 * Streamed in small pieces, so a placeholder is split across chunks. It keeps every body it got,
 * which is what the model saw.
 */
import { fakeServer } from "./routing.ts";

export interface EchoEngine {
  url: string;
  /** The bodies the engine was sent, parsed. */
  seen: Record<string, unknown>[];
  close(): Promise<void>;
}

export function startEchoEngine(opts: { piece?: number; prefix?: string } = {}): EchoEngine {
  const seen: Record<string, unknown>[] = [];
  const piece = opts.piece ?? 3;
  const server = fakeServer(async (req) => {
    const body = await req.json() as Record<string, unknown>;
    seen.push(body);
    const said = (opts.prefix ?? "") + lastUserText(body);
    const tool = Array.isArray(body.tools)
      ? (body.tools[0] as { function: { name: string } })
      : undefined;
    const args = tool ? JSON.stringify({ said }) : undefined;
    const usage = { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 };
    const base = { id: "e1", created: 1, model: body.model };
    if (body.stream !== true) {
      const message = tool
        ? {
          role: "assistant",
          content: null,
          tool_calls: [{
            id: "c1",
            type: "function",
            function: { name: tool.function.name, arguments: args },
          }],
        }
        : { role: "assistant", content: said };
      return Response.json({
        ...base,
        object: "chat.completion",
        choices: [{ index: 0, message, finish_reason: tool ? "tool_calls" : "stop" }],
        usage,
      });
    }
    const chunks: unknown[] = [];
    const chunk = (delta: unknown, finish: string | null = null) =>
      chunks.push({
        ...base,
        object: "chat.completion.chunk",
        choices: [{ index: 0, delta, finish_reason: finish }],
      });
    chunk({ role: "assistant", content: "" });
    for (let i = 0; i < said.length; i += piece) chunk({ content: said.slice(i, i + piece) });
    if (tool && args) {
      chunk({
        tool_calls: [{
          index: 0,
          id: "c1",
          type: "function",
          function: { name: tool.function.name, arguments: "" },
        }],
      });
      for (let i = 0; i < args.length; i += piece) {
        chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(i, i + piece) } }] });
      }
    }
    chunk({}, tool ? "tool_calls" : "stop");
    chunks.push({ ...base, object: "chat.completion.chunk", choices: [], usage });
    const text = chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`);
    text.push("data: [DONE]\n\n");
    const enc = new TextEncoder();
    // One event per write, as an engine sends tokens.
    const stream = new ReadableStream<Uint8Array>({
      pull(ctrl) {
        const next = text.shift();
        if (next === undefined) ctrl.close();
        else ctrl.enqueue(enc.encode(next));
      },
    });
    return new Response(stream, { headers: { "content-type": "text/event-stream" } });
  });
  return { url: server.url, seen, close: server.close };
}

function lastUserText(body: Record<string, unknown>): string {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role?: string; content?: unknown };
    if (m.role === "user" && typeof m.content === "string") return m.content;
  }
  return typeof body.prompt === "string" ? body.prompt : "";
}
