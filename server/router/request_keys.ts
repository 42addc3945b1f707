/**
 * What routing reads from a request body, once per request: the session key (for affinity) and
 * the hashes of the prompt's leading fixed-size blocks (for prefix affinity). Both are seeded
 * with the tenant, so one project's prefix or session id never places another project's request:
 * a cache warmed by another tenant must not show in time to first token what that tenant sent.
 */
import { fnv1a } from "./hash.ts";

export interface PrefixOptions {
  /** A prompt shorter than this (in characters) has no prefix worth following. */
  minChars: number;
  blockChars: number;
  maxBlocks: number;
}

export const defaultPrefixOptions: PrefixOptions = {
  minChars: 1024,
  blockChars: 256,
  maxBlocks: 64,
};

/** The hash seed of the request's tenant: its key's project, else the key itself. */
export function tenantSeed(key: { id: string; projectId: string | null }): number {
  return key.projectId ? fnv1a(key.projectId, 0x5bd1e995) : fnv1a(key.id, 0x27d4eb2f);
}

/**
 * The session a request belongs to: `x-session-id`, else the body's `user`, else a hash of the
 * conversation's opening (its first two messages), which every turn of it repeats. Undefined when
 * the request has none of these (embeddings, a bare completion prompt hashes its start instead).
 */
export function sessionKey(
  header: string | undefined,
  body: Record<string, unknown>,
  tenant = 0,
): number | undefined {
  if (header) return fnv1a(header, 0x9e3779b9 ^ tenant);
  if (typeof body.user === "string" && body.user) return fnv1a(body.user, 0x7f4a7c15 ^ tenant);
  const messages = body.messages;
  if (Array.isArray(messages) && messages.length > 0) {
    let h = 0x811c9dc5 ^ tenant;
    for (let i = 0; i < messages.length && i < 2; i++) h = hashMessage(messages[i], h);
    return h;
  }
  if (typeof body.prompt === "string" && body.prompt) {
    return fnv1a(body.prompt, 0x811c9dc5 ^ tenant, 0, Math.min(body.prompt.length, 512));
  }
  return undefined;
}

function hashMessage(m: unknown, h: number): number {
  if (typeof m !== "object" || m === null) return h;
  const { role, content } = m as { role?: unknown; content?: unknown };
  if (typeof role === "string") h = fnv1a(role, h);
  if (typeof content === "string") return fnv1a(content, h);
  if (Array.isArray(content)) {
    for (const part of content) {
      const text = (part as { text?: unknown } | null)?.text;
      if (typeof text === "string") h = fnv1a(text, h);
    }
  }
  return h;
}

/**
 * Chained hashes of the prompt's leading whole blocks: block i's hash covers blocks 0..i, so equal
 * hashes mean equal prefixes. Empty when the prompt is shorter than `minChars`.
 */
export function prefixBlocks(
  body: Record<string, unknown>,
  o: PrefixOptions,
  tenant = 0,
): number[] {
  const text = promptText(body, o.blockChars * o.maxBlocks);
  if (text.length < o.minChars) return [];
  const out: number[] = [];
  let h = 0x811c9dc5 ^ tenant;
  for (
    let at = 0;
    at + o.blockChars <= text.length && out.length < o.maxBlocks;
    at += o.blockChars
  ) {
    h = fnv1a(text, h, at, at + o.blockChars);
    out.push(h);
  }
  return out;
}

/** The prompt as the engine will see it, roughly: roles and text in order, up to `limit` chars. */
function promptText(body: Record<string, unknown>, limit: number): string {
  if (typeof body.prompt === "string") return body.prompt.slice(0, limit);
  const messages = body.messages;
  if (!Array.isArray(messages)) return "";
  const parts: string[] = [];
  let size = 0;
  for (const m of messages) {
    if (size >= limit) break;
    if (typeof m !== "object" || m === null) continue;
    const { role, content } = m as { role?: unknown; content?: unknown };
    const piece = `${typeof role === "string" ? role : ""}\n${contentText(content)}\n`;
    parts.push(piece);
    size += piece.length;
  }
  return parts.join("").slice(0, limit);
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let s = "";
  for (const part of content) {
    const text = (part as { text?: unknown } | null)?.text;
    if (typeof text === "string") s += text;
  }
  return s;
}
