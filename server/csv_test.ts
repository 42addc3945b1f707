import { assertEquals } from "../tests/assert.ts";
import { csv, csvField } from "./csv.ts";

Deno.test("csv: RFC 4180 quoting, CRLF records, formulas defused, numbers left as numbers", () => {
  assertEquals(csvField("plain"), "plain");
  assertEquals(csvField('say "hi"'), '"say ""hi"""');
  assertEquals(csvField("a,b"), '"a,b"');
  assertEquals(csvField("two\nlines"), '"two\nlines"');
  assertEquals(csvField("cr\ronly"), '"cr\ronly"');
  assertEquals(csvField("=SUM(A1)"), "'=SUM(A1)");
  assertEquals(csvField("-1+1"), "'-1+1");
  assertEquals(csvField(-5), "-5");
  assertEquals(csvField("-0.000001"), "-0.000001");
  assertEquals(csvField(null), "");
  assertEquals(csv([["h1", "h2"], ["x", 1], ["a,b", ""]]), 'h1,h2\r\nx,1\r\n"a,b",\r\n');
});
