/**
 * National identity numbers, each by its format and, where it has one, its checksum: a number
 * that merely has the right length is not taken for one (one random 9-digit number in eleven
 * passes the Dutch 11-proof, so the bare-digit ones also need to stand alone, not inside a
 * longer run of digits or a phone number's groups).
 */

export const nationalIdKinds = ["ssn", "nino", "tckn", "steuer_id", "bsn", "dni"] as const;
export type NationalIdKind = (typeof nationalIdKinds)[number];

interface NationalId {
  label: string;
  pattern: RegExp;
  valid: (s: string) => boolean;
}

/** Digits standing alone: not after a digit, a word character, `+`, or a digit and a separator. */
const alone = (body: string) => new RegExp(`(?<![\\w+]|\\d[ .-])${body}(?![\\w]|[ .-]\\d)`, "g");

export const nationalIds: Record<NationalIdKind, NationalId> = {
  // US Social Security number, written in its groups: area, group and serial (no checksum).
  ssn: {
    label: "SSN",
    pattern: alone("\\d{3}(?:-\\d{2}-| \\d{2} )\\d{4}"),
    valid: ssnValid,
  },
  // UK National Insurance number: two prefix letters, six digits, a suffix A to D.
  nino: {
    label: "NINO",
    pattern: /\b[A-Za-z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-Da-d]\b/g,
    valid: ninoValid,
  },
  // Turkish T.C. Kimlik No: eleven digits, the last two checksums.
  tckn: { label: "TCKN", pattern: alone("[1-9]\\d{10}"), valid: tcknValid },
  // German Steuer-ID: eleven digits, ISO 7064 MOD 11,10, one digit repeated in the first ten.
  steuer_id: {
    label: "STEUER_ID",
    pattern: alone("[1-9]\\d(?: ?\\d{3}){3}"),
    valid: steuerIdValid,
  },
  // Dutch BSN: nine digits passing the 11-proof.
  bsn: { label: "BSN", pattern: alone("\\d{9}|\\d{4}\\.\\d{2}\\.\\d{3}"), valid: bsnValid },
  // Spanish DNI (eight digits) or NIE (X, Y or Z and seven digits) with its check letter.
  // One class first, not an alternation: V8 scans for it fast (an alternation here cost 10 µs
  // on a 2 KB prompt, half of all the PII finders together).
  dni: { label: "DNI", pattern: /\b[\dXYZxyz]-?\d{7}-? ?[A-Za-z]\b/g, valid: dniValid },
};

const digitsOf = (s: string) => [...s.replace(/\D/g, "")].map(Number);

export function ssnValid(s: string): boolean {
  const d = s.replace(/\D/g, "");
  const area = Number(d.slice(0, 3));
  // Never issued: area 000, 666 and 900-999, group 00, serial 0000.
  return area !== 0 && area !== 666 && area < 900 && d.slice(3, 5) !== "00" &&
    d.slice(5) !== "0000";
}

export function ninoValid(s: string): boolean {
  const n = s.replace(/ /g, "").toUpperCase();
  const [a, b] = [n[0]!, n[1]!];
  if ("DFIQUV".includes(a) || "DFIOQUV".includes(b)) return false;
  return !["BG", "GB", "NK", "KN", "TN", "NT", "ZZ"].includes(n.slice(0, 2));
}

export function tcknValid(s: string): boolean {
  const d = digitsOf(s);
  if (d.length !== 11 || d[0] === 0) return false;
  const odd = d[0]! + d[2]! + d[4]! + d[6]! + d[8]!;
  const even = d[1]! + d[3]! + d[5]! + d[7]!;
  const tenth = (((odd * 7 - even) % 10) + 10) % 10;
  const sum10 = d.slice(0, 10).reduce((a, b) => a + b, 0);
  return d[9] === tenth && d[10] === sum10 % 10;
}

export function steuerIdValid(s: string): boolean {
  const d = digitsOf(s);
  if (d.length !== 11 || d[0] === 0) return false;
  const counts = new Map<number, number>();
  for (const x of d.slice(0, 10)) counts.set(x, (counts.get(x) ?? 0) + 1);
  const repeated = [...counts.values()].filter((n) => n > 1);
  // Exactly one digit appears twice or three times in the first ten (never three in a row).
  if (repeated.length !== 1 || repeated[0]! > 3) return false;
  if (/(\d)\1\1/.test(d.slice(0, 10).join(""))) return false;
  let product = 10;
  for (const x of d.slice(0, 10)) {
    let sum = (x + product) % 10;
    if (sum === 0) sum = 10;
    product = (sum * 2) % 11;
  }
  const check = (11 - product) % 10;
  return d[10] === check;
}

export function bsnValid(s: string): boolean {
  const d = digitsOf(s);
  if (d.length !== 9 || d.every((x) => x === 0)) return false;
  let sum = -d[8]!;
  for (let i = 0; i < 8; i++) sum += d[i]! * (9 - i);
  return sum % 11 === 0;
}

const dniLetters = "TRWAGMYFPDXBNJZSQVHLCKE";

export function dniValid(s: string): boolean {
  // Only a NIE's letter is followed by a dash: a DNI is eight digits together.
  if (/^\d-/.test(s)) return false;
  const t = s.replace(/[- ]/g, "").toUpperCase();
  const number = t.slice(0, -1).replace(/^[XYZ]/, (l) => String("XYZ".indexOf(l)));
  return dniLetters[Number(number) % 23] === t.at(-1);
}
