/** The contract every judge format keeps; a new family is added to the list and passes it. */
import { assert, assertEquals } from "../tests/assert.ts";
import { judgeFormat, judgeFormatNames, judgeRequestBody } from "./judge_formats.ts";

/** What each family's model really writes, beside what render() writes. */
const samples: Record<string, { safe: string[]; unsafe: [string, string[]][]; junk: string[] }> = {
  "llama-guard-3": {
    safe: ["safe", "\n\nsafe\n"],
    unsafe: [["unsafe\nS1", ["S1"]], ["\n\nunsafe\nS2,S10", ["S2", "S10"]]],
    junk: ["", "I cannot help with that", "safety first"],
  },
  qwen3guard: {
    safe: ["Safety: Safe\nCategories: None", "Safety: Safe\nCategories: None\nRefusal: No"],
    unsafe: [
      ["Safety: Unsafe\nCategories: Violent", ["Violent"]],
      ["Safety: Controversial\nCategories: Politically Sensitive Topics", [
        "Politically Sensitive Topics",
      ]],
    ],
    junk: ["", "Safe", "Categories: Violent"],
  },
};

for (const name of judgeFormatNames) {
  const f = judgeFormat(name);
  const s = samples[name]!;

  Deno.test(`judge format ${name}: reads back what it renders`, () => {
    assertEquals(f.parse(f.render({ unsafe: false, categories: [] })), {
      unsafe: false,
      categories: [],
    });
    const unsafe = f.parse(f.render({ unsafe: true, categories: [] }));
    assert(unsafe?.unsafe === true && unsafe.categories.length === 1, JSON.stringify(unsafe));
  });

  Deno.test(`judge format ${name}: reads the family's own answers`, () => {
    for (const t of s.safe) assertEquals(f.parse(t)?.unsafe, false, t);
    for (const [t, cats] of s.unsafe) assertEquals(f.parse(t), { unsafe: true, categories: cats });
  });

  Deno.test(`judge format ${name}: an answer that is no verdict is none, never "safe"`, () => {
    for (const t of s.junk) assertEquals(f.parse(t), null, JSON.stringify(t));
  });

  Deno.test(`judge format ${name}: the request asks without a prompt cache, room for the verdict`, () => {
    const body = judgeRequestBody("g", f, [{ role: "user", content: "hello" }]);
    assertEquals(body.cache_prompt, false);
    assertEquals(body.stream, false);
    assertEquals(body.messages, [{ role: "user", content: "hello" }]);
    const longest = f.render({ unsafe: true, categories: [] });
    // About four characters a token: the verdict fits in what the request lets the judge write.
    assert(f.maxTokens * 4 >= longest.length, `${f.maxTokens} tokens for ${longest.length} chars`);
  });
}
