/**
 * The device cookie: a browser that once signed in to an account carries a mark of it, so the
 * sign-in throttle can tell the owner's browser from a guesser's. It names the account and when
 * it was issued, signed (HMAC-SHA256) with the account's stored password hash: a secret only the
 * server holds, per account, that needs no key of its own, and that changes with the password, so
 * a new password retires every old mark.
 */
import { createHmac } from "node:crypto";
import { constantTimeEqual } from "./secrets.ts";

export const deviceCookie = "llmgw_device";
export const deviceCookieMaxAgeS = 180 * 24 * 3600;

function mac(passwordHash: string, personId: string, issuedAt: number): string {
  return createHmac("sha256", passwordHash).update(`device\0${personId}\0${issuedAt}`)
    .digest("base64url");
}

export function makeDeviceMark(passwordHash: string, personId: string, now: number): string {
  return `${personId}.${now}.${mac(passwordHash, personId, now)}`;
}

/** Whether `mark` was issued by this server for this account (under its current password). */
export function isDeviceMark(
  mark: string | undefined,
  passwordHash: string,
  personId: string,
  now: number,
): boolean {
  if (!mark) return false;
  const [id, at, sig] = mark.split(".");
  const issuedAt = Number(at);
  if (id !== personId || !sig || !Number.isSafeInteger(issuedAt)) return false;
  if (now - issuedAt > deviceCookieMaxAgeS * 1000) return false;
  return constantTimeEqual(sig, mac(passwordHash, personId, issuedAt));
}
