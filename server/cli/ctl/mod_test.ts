import { assertEquals, assertThrows } from "../../../tests/assert.ts";
import type { Noun, Verb } from "./client.ts";
import { allFlags, helpText, nouns, pick } from "./mod.ts";

const verb = (help: string): Verb => ({ help, run: () => Promise.resolve(0) });
const list = verb("  things list");
const show = verb("  things show ID");
const bare = verb("  stash FILE");
const sums = verb("  sums");
const table: Noun[] = [
  { name: "things", verbs: { list, show } },
  { name: "stash", verbs: {}, bare },
  { name: "sums", verbs: { list }, bare: sums },
];

Deno.test("ctl picks NOUN VERB ARGS; alone, a noun runs its bare verb or list", () => {
  assertEquals(pick(table, ["things", "show", "a", "b"]), { verb: show, args: ["a", "b"] });
  assertEquals(pick(table, ["things"]), { verb: list, args: [] });
  assertEquals(pick(table, ["sums"]), { verb: sums, args: [] });
  assertEquals(pick(table, ["sums", "list"]), { verb: list, args: [] });
  // A noun without verbs takes every word after it as an argument.
  assertEquals(pick(table, ["stash", "out.db", "x"]), { verb: bare, args: ["out.db", "x"] });
  assertEquals(pick(table, ["stash"]), { verb: bare, args: [] });
});

Deno.test("ctl knows no verb a noun does not list: not a bare one's, not an object's own", () => {
  assertEquals(pick(table, ["sums", "other"]), undefined);
  assertEquals(pick(table, ["things", "toString"]), undefined);
  assertEquals(pick(table, ["things", "constructor"]), undefined);
  assertEquals(pick(table, ["nothing"]), undefined);
  assertEquals(pick([{ name: "bare-less", verbs: { show } }], ["bare-less"]), undefined);
});

Deno.test("two verbs that declare one flag differently are refused when ctl loads", () => {
  const withFlag = (type: "string" | "boolean"): Verb => ({ ...verb(""), flags: { x: { type } } });
  assertThrows(
    () =>
      allFlags([
        { name: "a", verbs: { one: withFlag("string") } },
        { name: "b", verbs: { two: withFlag("boolean") } },
      ]),
    Error,
    "--x is declared twice",
  );
  assertEquals(
    allFlags([{ name: "a", verbs: { one: withFlag("string"), two: withFlag("string") } }]).x,
    { type: "string" },
  );
});

Deno.test("ctl --help names every noun's every verb", () => {
  const help = helpText(nouns);
  for (const noun of nouns) {
    const lines = help.split("\n").filter((l) =>
      l.startsWith(`  ${noun.name} `) || l === `  ${noun.name}`
    );
    if (noun.bare) assertEquals(lines.length > 0, true, `ctl ${noun.name}`);
    for (const name of Object.keys(noun.verbs)) {
      const said = lines.some((l) =>
        new RegExp(`^  ${noun.name} (\\[)?([\\w-]+\\|)*${name}\\b`).test(l)
      );
      assertEquals(said, true, `ctl ${noun.name} ${name} is not in --help`);
    }
  }
});
