/**
 * The built-in finders: secrets (API keys, private keys, tokens in the common formats) and
 * personal data (email, phone, IBAN with its mod-97 check, card numbers with Luhn, IP addresses,
 * national ids with their checksums: server/guard/national_ids.ts).
 * Each returns spans of the text; the checksums keep order numbers and dates from passing for
 * cards and accounts. Every pattern here is linear or bounded per start position.
 */

import { nationalIdKinds, nationalIds } from "./national_ids.ts";

export const piiKinds = ["email", "phone", "iban", "card", "ip", ...nationalIdKinds] as const;
export type PiiKind = (typeof piiKinds)[number];

export interface Span {
  start: number;
  end: number;
  /** The placeholder's label: EMAIL, CARD, SECRET… */
  label: string;
}

const secretPatterns: RegExp[] = [
  /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|$)/g,
  /\bsk-(?:proj-|ant-(?:api\d\d-)?)?[A-Za-z0-9_-]{20,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\bgh[pousr]_[A-Za-z0-9]{36,}\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{40,}\b/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}\b/g,
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
  /\b[rs]k_(?:live|test)_[0-9A-Za-z]{16,}\b/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  /\bglpat-[A-Za-z0-9_-]{20,}\b/g,
];

export function findSecrets(text: string): Span[] {
  const out: Span[] = [];
  for (const re of secretPatterns) {
    for (const m of text.matchAll(re)) {
      out.push({ start: m.index, end: m.index + m[0].length, label: "SECRET" });
    }
  }
  return out;
}

const ibanPattern = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b/g;
const cardPattern = /\b\d(?:[ -]?\d){12,18}\b/g;
const phonePattern = /(?<![\w+])\+?\(?\d[\d ().-]{6,18}\d\b/g;
const ipv4Pattern =
  /\b(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}\b/g;
const ipv6Pattern =
  /(?<![\w:])(?:(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}|(?:[0-9a-f]{1,4}:){1,6}:(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4}){0,5})?|::(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4}){0,6}))(?![\w:])/gi;

/** The kinds asked for, in an order where the stricter finder claims a span first. */
export function findPii(text: string, kinds: readonly PiiKind[]): Span[] {
  const out: Span[] = [];
  const want = new Set(kinds);
  if (want.has("email") && text.includes("@")) out.push(...findEmails(text));
  if (want.has("iban")) collect(text, ibanPattern, "IBAN", ibanValid, out);
  if (want.has("card")) collect(text, cardPattern, "CARD", luhnValid, out);
  if (want.has("ip")) {
    collect(text, ipv4Pattern, "IP", () => true, out);
    if (text.includes(":")) collect(text, ipv6Pattern, "IP", (s) => s.length > 2, out);
  }
  for (const kind of nationalIdKinds) {
    const id = nationalIds[kind];
    if (want.has(kind)) collect(text, id.pattern, id.label, id.valid, out);
  }
  if (want.has("phone")) collect(text, phonePattern, "PHONE", phoneValid, out);
  return out;
}

function collect(
  text: string,
  re: RegExp,
  label: string,
  valid: (s: string) => boolean,
  out: Span[],
): void {
  for (const m of text.matchAll(re)) {
    const start = m.index;
    const end = start + m[0].length;
    if (out.some((s) => s.start < end && start < s.end)) continue;
    if (valid(m[0])) out.push({ start, end, label });
  }
}

const localChar = /[A-Za-z0-9._%+-]/;
const domainChar = /[A-Za-z0-9.-]/;

/** Around each `@`: a scan outwards, linear in the text (a regex would retry every start). */
function findEmails(text: string): Span[] {
  const out: Span[] = [];
  let from = 0;
  for (let at = text.indexOf("@"); at >= 0; at = text.indexOf("@", at + 1)) {
    let s = at;
    while (s > from && localChar.test(text[s - 1]!)) s--;
    let e = at + 1;
    while (e < text.length && domainChar.test(text[e]!)) e++;
    while (e > at + 1 && (text[e - 1] === "." || text[e - 1] === "-")) e--;
    const domain = text.slice(at + 1, e);
    const dot = domain.lastIndexOf(".");
    if (s === at || dot < 1 || !/^[A-Za-z]{2,}$/.test(domain.slice(dot + 1))) continue;
    out.push({ start: s, end: e, label: "EMAIL" });
    from = e;
  }
  return out;
}

export function luhnValid(s: string): boolean {
  const digits = s.replace(/\D/g, "");
  // The networks' numbers start with 2 to 6 (Mastercard, Amex, Visa, Discover…).
  if (digits.length < 13 || digits.length > 19 || !/^[2-6]/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export function ibanValid(s: string): boolean {
  const iban = s.replace(/ /g, "");
  if (iban.length < 15 || iban.length > 34) return false;
  const moved = iban.slice(4) + iban.slice(0, 4);
  let rest = 0;
  for (const ch of moved) {
    const code = ch.charCodeAt(0);
    const v = code >= 65 ? code - 55 : code - 48;
    rest = v >= 10 ? (rest * 100 + v) % 97 : (rest * 10 + v) % 97;
  }
  return rest === 1;
}

function phoneValid(s: string): boolean {
  const digits = s.replace(/\D/g, "").length;
  // A date (2024-01-02) or a version is not a phone number; an international one may start with +.
  return digits >= 9 && digits <= 15 && !/^\d{4}-\d\d-\d\d/.test(s);
}
