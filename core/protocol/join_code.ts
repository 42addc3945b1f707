/**
 * A join code: everything a new node needs to find and trust its cluster and to be let in once.
 * `llmgwj1.` then base64url of JSON: the control planes' cluster URLs, a one-time secret (the
 * control plane keeps only its hash), and the sha256 fingerprint of the cluster CA, so the node
 * trusts that CA and no other.
 */
import { z } from "zod";

const prefix = "llmgwj1.";

const payloadSchema = z.object({
  urls: z.array(z.string().url()).min(1),
  secret: z.string().min(16),
  /** sha256 of the CA certificate's DER, lowercase hex. */
  ca: z.string().regex(/^[0-9a-f]{64}$/),
});
export type JoinCode = z.infer<typeof payloadSchema>;

export function encodeJoinCode(code: JoinCode): string {
  const json = new TextEncoder().encode(JSON.stringify(code));
  return prefix + btoa(String.fromCharCode(...json)).replaceAll("+", "-").replaceAll("/", "_")
    .replace(/=+$/, "");
}

/** Throws a TypeError that says what is wrong with the code, never echoing its secret. */
export function decodeJoinCode(text: string): JoinCode {
  const t = text.trim();
  if (!t.startsWith(prefix)) {
    throw new TypeError(`this is not a join code (it should start with "${prefix}")`);
  }
  let payload: unknown;
  try {
    const b64 = t.slice(prefix.length).replaceAll("-", "+").replaceAll("_", "/");
    const bin = atob(b64);
    payload = JSON.parse(new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0))));
  } catch {
    throw new TypeError("the join code is damaged (copy it again, whole)");
  }
  const r = payloadSchema.safeParse(payload);
  if (!r.success) throw new TypeError("the join code is damaged (copy it again, whole)");
  return r.data;
}
