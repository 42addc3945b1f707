/**
 * /v1/messages/count_tokens: how many input tokens a Messages request would take, without
 * running it. No engine is asked (that would take a slot and be charged), so this is an
 * estimate, as Anthropic's own count is documented to be: about four characters a token over
 * the text the chat template would be given, plus each message's framing.
 */
import { isRecord } from "../router/json_fields.ts";

type Json = Record<string, unknown>;

const charsPerToken = 4;
/** Role markers and separators a chat template adds around each message. */
const perMessage = 4;

/** The estimate for a translated chat completions body (messages, tools). */
export function estimateInputTokens(body: Json): number {
  const messages = Array.isArray(body.messages) ? body.messages.filter(isRecord) : [];
  let chars = 0;
  for (const m of messages) {
    chars += textChars(m.content);
    if (Array.isArray(m.tool_calls)) chars += JSON.stringify(m.tool_calls).length;
  }
  if (Array.isArray(body.tools)) chars += JSON.stringify(body.tools).length;
  return Math.ceil(chars / charsPerToken) + perMessage * messages.length;
}

function textChars(content: unknown): number {
  if (typeof content === "string") return content.length;
  if (!Array.isArray(content)) return 0;
  return content.reduce(
    (n: number, p) => n + (isRecord(p) && typeof p.text === "string" ? p.text.length : 0),
    0,
  );
}
