import { assert, assertEquals, assertThrows } from "../../../tests/assert.ts";
import type { Noun, Verb } from "./client.ts";
import { parseArgs } from "node:util";
import { examples } from "./examples.ts";
import { allFlags, helpText, nounHelp, nouns, pick, strayFlag, unknownCommand } from "./mod.ts";

const verb = (help: string): Verb => ({ help, run: () => Promise.resolve(0) });
const list = verb("  things list");
const show = verb("  things show ID");
const bare = verb("  stash FILE");
const sums = verb("  sums");
const things: Noun = { name: "things", verbs: { list, show } };
const stash: Noun = { name: "stash", verbs: {}, bare };
const summed: Noun = { name: "sums", verbs: { list }, bare: sums };
const table: Noun[] = [things, stash, summed];

Deno.test("ctl picks NOUN VERB ARGS; alone, a noun runs its bare verb or list", () => {
  const n = things;
  assertEquals(pick(table, ["things", "show", "a", "b"]), {
    noun: n,
    verb: show,
    args: ["a", "b"],
  });
  assertEquals(pick(table, ["things"]), { noun: n, verb: list, args: [] });
  assertEquals(pick(table, ["sums"]), { noun: summed, verb: sums, args: [] });
  assertEquals(pick(table, ["sums", "list"]), { noun: summed, verb: list, args: [] });
  // A noun without verbs takes every word after it as an argument.
  assertEquals(pick(table, ["stash", "out.db", "x"]), {
    noun: stash,
    verb: bare,
    args: ["out.db", "x"],
  });
  assertEquals(pick(table, ["stash"]), { noun: stash, verb: bare, args: [] });
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

/** Shell words of an example: quotes joined, a redirection and what follows it left out. */
function words(line: string): string[] {
  const out = [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!);
  const cut = out.indexOf(">");
  return cut < 0 ? out : out.slice(0, cut);
}

Deno.test("every ctl verb with a help line has examples, and each example parses as that verb", () => {
  const flags = { ...allFlags(nouns), data: { type: "string" as const } };
  for (const noun of nouns) {
    const verbs = [...(noun.bare ? [["", noun.bare] as const] : []), ...Object.entries(noun.verbs)];
    for (const [name, verb] of verbs) {
      const own = examples[noun.name]?.[name] ?? [];
      if (verb.help) assert(own.length > 0, `ctl ${noun.name} ${name} has no example`);
      for (const line of own) {
        const [ctl, ...argv] = words(line);
        assertEquals(ctl, "ctl", line);
        const { values, positionals } = parseArgs({
          args: argv,
          options: flags,
          strict: true,
          allowPositionals: true,
        });
        const picked = pick(nouns, positionals);
        assert(picked, `${line}: no such verb`);
        if (name !== "") {
          assert(picked.verb === verb || !picked.verb.help, `${line}: runs another verb`);
        }
        assertEquals(strayFlag(picked.noun, picked.verb, values), undefined, line);
      }
    }
    const help = nounHelp(noun);
    assert(help.includes("\nExamples:\n  llmgw ctl "), `ctl ${noun.name} --help`);
  }
  assertEquals(Object.keys(examples).filter((n) => !nouns.some((x) => x.name === n)), []);
});

Deno.test("a mistyped area, verb or flag gets one line naming the nearest", () => {
  assertEquals(
    unknownCommand(nouns, ["kyes"]),
    "unknown area 'ctl kyes'; did you mean 'ctl keys'? (llmgw ctl --help lists them)",
  );
  assertEquals(
    unknownCommand(nouns, ["keys", "creat"]),
    "unknown verb 'ctl keys creat'; did you mean 'ctl keys create'? (llmgw ctl keys --help)",
  );
  assertEquals(
    unknownCommand(nouns, ["keys", "zzzzzz"]),
    "unknown verb 'ctl keys zzzzzz' (llmgw ctl keys --help)",
  );
  const keys = nouns.find((n) => n.name === "keys")!;
  assertEquals(
    strayFlag(keys, keys.verbs.create!, { name: "x", expires: "1h" }),
    "ctl keys create does not take --expires; did you mean '--expires-at' or '--expires-in'? " +
      "(llmgw ctl keys create --help)",
  );
  assertEquals(strayFlag(keys, keys.verbs.create!, { name: "x", json: true }), undefined);
  assertEquals(
    nounHelp(nouns.find((n) => n.name === "nodes")!, "uncordon").split("\n")[2],
    "  nodes cordon|uncordon|drain NODE            Stop placing on a node / allow again / move off it",
  );
});
