import { assert, assertEquals } from "../../tests/assert.ts";
import { v8Flags } from "../../core/v8_flags.ts";
import { compilePattern, lowerSameLength, unsafeConstruct } from "./patterns.ts";
import { findPii, ibanValid, luhnValid } from "./detectors.ts";
import { normalizeText } from "./normalize.ts";

Deno.test("patterns: what could backtrack is refused, plain patterns compile", () => {
  for (
    const bad of ["(a+)+", "(a*)*b", "(\\w+)\\1", "(?<n>a)\\k<n>", "a(?=b)", "(?<!x)y", "(a|b)+"]
  ) {
    assert(unsafeConstruct(bad), bad);
    assertEquals(typeof compilePattern(bad), "string", bad);
  }
  for (
    const ok of ["ignore (all )?previous", "a+b*c?", "[(+*]+x", "\\(a+\\)+", "(?:ab)+", "x{2,5}"]
  ) {
    assertEquals(unsafeConstruct(ok), undefined, ok);
    assert(compilePattern(ok) instanceof RegExp, ok);
  }
  assertEquals(typeof compilePattern("(unclosed"), "string");
});

Deno.test("patterns run on V8's linear-time engine in a process started with llmgw's V8 flags", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `--v8-flags=${v8Flags}`,
      `import { linearEngine, compilePattern } from "${new URL("./patterns.ts", import.meta.url)}";
       console.log(linearEngine, compilePattern("ignore (all )?previous").flags);`,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(new TextDecoder().decode(out.stdout).trim(), "true gl");
});

Deno.test("normalising: compatibility forms fold, invisible and bidi controls go; lower-casing keeps positions", () => {
  assertEquals(normalizeText("ｉｇｎｏｒｅ pre\u200bvi\u202eous\ufeff"), "ignore previous");
  assertEquals(lowerSameLength("AİB").length, 3);
  assertEquals(lowerSameLength("ABC"), "abc");
});

Deno.test("checksums: Luhn for cards, mod 97 for IBANs; dates and short numbers are not phones", () => {
  assert(luhnValid("4111 1111 1111 1111"));
  assert(!luhnValid("4111 1111 1111 1112"));
  assert(ibanValid("GB82 WEST 1234 5698 7654 32"));
  assert(!ibanValid("GB82 WEST 1234 5698 7654 33"));
  const labels = (t: string) =>
    findPii(t, ["phone", "card", "iban", "ip", "email"]).map((s) => s.label);
  assertEquals(labels("on 2024-01-02, build 1.2.3, room 12"), []);
  assertEquals(labels("ring 555-867-5309 or fe80::1"), ["IP", "PHONE"]);
});
