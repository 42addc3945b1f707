/**
 * Password hashes: PBKDF2-SHA256 at 600,000 iterations through WebCrypto (OWASP's figure for
 * PBKDF2-SHA256; argon2id would need a native or WASM package we do not carry). Hashes describe
 * themselves, so iterations can be raised later, and the skeleton's scrypt hashes still verify
 * (and are re-hashed to PBKDF2 by the sign-in that proves them).
 */
import { randomBytes, scrypt as scryptCb, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";

export const pbkdf2Iterations = 600_000;
/** Marks an account whose password lives with the identity provider: it can never match. */
export const oidcPasswordSentinel = "!oidc";
/** Marks an account whose password the LDAP directory proves: it never matches locally either. */
export const directoryPasswordSentinel = "!ldap";

const scrypt = promisify(scryptCb) as (
  password: string,
  salt: Buffer,
  keylen: number,
  opts: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

async function pbkdf2(password: string, salt: Uint8Array, iterations: number, bytes: number) {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(password),
    "PBKDF2",
    false,
    ["deriveBits"],
  );
  const bits = await crypto.subtle.deriveBits(
    { name: "PBKDF2", hash: "SHA-256", salt: salt as BufferSource, iterations },
    key,
    bytes * 8,
  );
  return new Uint8Array(bits);
}

export async function hashPassword(
  password: string,
  iterations = pbkdf2Iterations,
): Promise<string> {
  const salt = randomBytes(16);
  const hash = await pbkdf2(password, salt, iterations, 32);
  return `pbkdf2-sha256$${iterations}$${salt.toString("base64url")}$${
    Buffer.from(hash).toString("base64url")
  }`;
}

/** True when `stored` is an older or weaker hash that a successful sign-in should replace. */
export function needsRehash(stored: string): boolean {
  const [kind, iterations] = stored.split("$");
  return kind !== "pbkdf2-sha256" || Number(iterations) < pbkdf2Iterations;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split("$");
  if (parts[0] === "pbkdf2-sha256" && parts.length === 4) {
    const iterations = Number(parts[1]);
    if (!Number.isInteger(iterations) || iterations < 1) return false;
    const want = Buffer.from(parts[3]!, "base64url");
    const got = await pbkdf2(
      password,
      Buffer.from(parts[2]!, "base64url"),
      iterations,
      want.length,
    );
    return want.length > 0 && timingSafeEqual(got, want);
  }
  if (parts[0] === "scrypt" && parts.length === 6) {
    const [, n, r, p, salt, hash] = parts;
    const want = Buffer.from(hash!, "base64url");
    const got = await scrypt(password, Buffer.from(salt!, "base64url"), want.length, {
      N: Number(n),
      r: Number(r),
      p: Number(p),
      maxmem: 64 * 1024 * 1024,
    });
    return timingSafeEqual(got, want);
  }
  return false;
}

/**
 * A hash nothing matches, verified when the email is unknown (or the account has no local
 * password) so that answer takes as long as a wrong password: a stopwatch must not list accounts.
 */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(24).toString("base64url"));
  return decoy;
}
