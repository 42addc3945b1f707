import { assertEquals } from "../../tests/assert.ts";
import { findPii } from "./detectors.ts";
import type { NationalIdKind } from "./national_ids.ts";

/** What the finders label in `text` when every PII kind is asked for. */
const labels = (text: string) =>
  findPii(text, [
    "email",
    "phone",
    "iban",
    "card",
    "ip",
    "ssn",
    "nino",
    "tckn",
    "steuer_id",
    "bsn",
    "dni",
  ]).map((s) => text.slice(s.start, s.end) + "=" + s.label);

const cases: { kind: NationalIdKind; yes: string[]; no: string[] }[] = [
  // Area 000, 666 and 9xx, group 00 and serial 0000 were never issued.
  {
    kind: "ssn",
    yes: ["123-45-6789", "536 22 1234"],
    no: ["666-12-3456", "123-00-4567", "912-34-5678"],
  },
  // D, F, I, Q, U, V never lead; BG, GB, NK, KN, TN, NT, ZZ are not given; the suffix is A-D.
  {
    kind: "nino",
    yes: ["AB123456C", "JG 10 37 21 A"],
    no: ["QQ123456C", "GB123456A", "AB123456E"],
  },
  { kind: "tckn", yes: ["10000000146"], no: ["10000000147", "10000000156"] },
  { kind: "steuer_id", yes: ["86095742719", "47 036 892 816"], no: ["86095742718", "12345678901"] },
  { kind: "bsn", yes: ["123456782", "1112.22.333"], no: ["123456789", "111222334"] },
  { kind: "dni", yes: ["12345678Z", "X1234567L", "Y-2345678-Z"], no: ["12345678A", "X1234567A"] },
];

for (const { kind, yes, no } of cases) {
  Deno.test(`national ids: ${kind} found by its format and checksum, a near miss is not`, () => {
    for (const id of yes) {
      const found = findPii(`my id is ${id}, thanks`, [kind]);
      assertEquals(found.length, 1, id);
      assertEquals(`my id is ${id}, thanks`.slice(found[0]!.start, found[0]!.end), id);
    }
    for (const id of no) assertEquals(findPii(`my id is ${id}, thanks`, [kind]), [], id);
  });
}

Deno.test("national ids: digits inside a longer number or a phone number's groups are not taken for one", () => {
  // 123456782 passes the 11-proof, but here it is part of something else.
  assertEquals(findPii("ref 9123456782 or +31 123456782 or 06 123456782 4", ["bsn"]), []);
  // With every kind asked for, the phone number stays a phone number.
  assertEquals(labels("call +44 20 7946 0958"), ["+44 20 7946 0958=PHONE"]);
  assertEquals(labels("TC 10000000146, BSN 123456782"), ["10000000146=TCKN", "123456782=BSN"]);
});
