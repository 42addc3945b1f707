/** Making and checking secrets: tokens, their hashes, and password hashes. */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** `prefix` followed by 32 random bytes in base64url (256 bits: too many to guess, so a fast hash suffices). */
export function randomToken(prefix: string, bytes = 32): string {
  return prefix + randomBytes(bytes).toString("base64url");
}

/** node:crypto hashes in place; WebCrypto's digest hops threads, ~20× slower for a key check. */
export function sha256Hex(text: string): Promise<string> {
  return Promise.resolve(createHash("sha256").update(text).digest("hex"));
}

/** The same hash without a promise, for checks on the request path. */
export function sha256HexSync(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Compares two strings without leaking, through timing, where they first differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const ab = new TextEncoder().encode(a);
  const bb = new TextEncoder().encode(b);
  if (ab.length !== bb.length) return false;
  return timingSafeEqual(ab, bb);
}

/** Password hashing moved to passwords.ts (PBKDF2-SHA256); re-exported for older callers. */
export { hashPassword, verifyPassword } from "./passwords.ts";

/** A password a person can type: 20 characters from an alphabet without look-alikes. */
export function generatePassword(length = 20): string {
  const alphabet = "abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  const bytes = randomBytes(length * 2);
  let out = "";
  for (const b of bytes) {
    if (b < 256 - (256 % alphabet.length)) out += alphabet[b % alphabet.length];
    if (out.length === length) break;
  }
  return out;
}
