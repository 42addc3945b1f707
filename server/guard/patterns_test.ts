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

Deno.test("with llmgw's V8 flags a pattern that backtracks without end falls back to the linear engine", async () => {
  // Without the flags this would run for longer than the universe has left: not run here.
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `--v8-flags=${v8Flags}`,
      `import { compilePattern } from "${new URL("./patterns.ts", import.meta.url)}";
       const re = compilePattern("a*a*a*a*a*a*a*b");
       const t0 = performance.now();
       console.log([..."a".repeat(3000).matchAll(re)].length, performance.now() - t0 < 5000);`,
    ],
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(30_000),
  }).output();
  assertEquals(new TextDecoder().decode(out.stdout).trim(), "0 true");
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
