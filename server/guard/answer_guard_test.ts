/**
 * The stream guard on its own, fed engine events piece by piece: what goes out when, under an
 * output rule that redacts or blocks (held back `streamHold` characters, values replaced whole,
 * the rest at the part's end, in the order it was said).
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { StreamGuard, streamHold } from "./answer_guard.ts";
import { compilePolicy } from "./compiled_policy.ts";
import { GuardPass } from "./guard_pass.ts";
import type { GuardRule } from "./policy.ts";

function policyOf(rules: GuardRule[], opts: { bufferAll?: boolean } = {}) {
  return compilePolicy({
    name: "out",
    scope: { kind: "global", id: "global" },
    applyTo: "output",
    restore: false,
    fail: "open",
    bufferAll: opts.bufferAll ?? false,
    rules,
    updatedAt: 0,
  });
}

function guardOf(rules: GuardRule[], opts: { bufferAll?: boolean } = {}): StreamGuard {
  return new StreamGuard(new GuardPass([policyOf(rules, opts)]));
}

const mail: GuardRule = { name: "mail", kind: "pii", action: "redact", types: ["email"] };

type Delta = Record<string, unknown>;
const ev = (delta: Delta, finish: string | null = null) =>
  `data: ${
    JSON.stringify({
      id: "c1",
      object: "chat.completion.chunk",
      model: "m",
      choices: [{ index: 0, delta, finish_reason: finish }],
    })
  }\n\n`;

/** The texts of each field, in the order the events carry them, and whether [DONE] came. */
function read(events: string): { text: string; fields: string[]; done: boolean; error: boolean } {
  let text = "";
  const fields: string[] = [];
  for (const line of events.split("\n")) {
    if (!line.startsWith("data: {")) continue;
    const body = JSON.parse(line.slice(6));
    for (const ch of body.choices ?? []) {
      for (const [f, v] of Object.entries(ch.delta ?? {})) {
        if (typeof v !== "string" || !v || f === "role") continue;
        text += v;
        if (fields.at(-1) !== f) fields.push(f);
      }
    }
  }
  return {
    text,
    fields,
    done: events.includes("data: [DONE]"),
    error: events.includes('"error"'),
  };
}

/** Feeds `text` as `content` in pieces of `piece`; what went out after each piece, joined so far. */
async function feed(g: StreamGuard, text: string, piece: number): Promise<string[]> {
  const seen: string[] = [];
  let out = "";
  for (let i = 0; i < text.length; i += piece) {
    out += (await g.events(ev({ content: text.slice(i, i + piece) }))).text;
    seen.push(read(out).text);
  }
  return seen;
}

Deno.test("stream hold: what is said goes out streamHold characters behind, the rest at the end", async () => {
  const g = guardOf([mail]);
  const text = "a".repeat(150);
  const seen = await feed(g, text, 10);
  assertEquals(seen.at(-1)!.length, 150 - streamHold, "it runs behind by the hold, no more");
  assertEquals(seen[5]!.length, 0, "nothing before the first hold's worth");
  const end = await g.events(ev({}, "stop") + "data: [DONE]\n\n");
  const r = read(end.text);
  assertEquals(r.text, "a".repeat(streamHold), "the held tail comes before the end");
  assert(r.done && end.text.indexOf('"finish_reason":"stop"') > end.text.indexOf("aaaa"));
});

Deno.test("stream hold: a value split into single characters never goes out, even in part; its placeholder does", async () => {
  const g = guardOf([mail]);
  const text = "write to ana.lopez@example.com today, " + "then more words ".repeat(8);
  const seen = await feed(g, text, 1);
  for (const s of seen) assert(!s.includes("ana"), `no part of the value went out: ${s}`);
  const end = await g.events(ev({}, "stop") + "data: [DONE]\n\n");
  const whole = seen.at(-1)! + read(end.text).text;
  assertEquals(whole, text.replace("ana.lopez@example.com", "[EMAIL]"));
});

Deno.test("stream hold: the last chunk's own text and another field's held text keep their order", async () => {
  const g = guardOf([mail]);
  let out = "";
  out += (await g.events(ev({ reasoning_content: "think about bo@example.org first" }))).text;
  out += (await g.events(ev({ content: "answer: " }))).text;
  out += (await g.events(ev({ content: "write to ana@example.com" }, "stop"))).text;
  out += (await g.events("data: [DONE]\n\n")).text;
  const r = read(out);
  assertEquals(
    r.fields,
    ["reasoning_content", "content"],
    "what was thought comes before the answer",
  );
  assertEquals(r.text, "think about [EMAIL] firstanswer: write to [EMAIL]");
  assert(r.done);
});

Deno.test("stream hold: a block rule sees a split phrase whole before any of it goes out", async () => {
  const g = guardOf([{
    name: "leak",
    kind: "literal",
    action: "block",
    literals: ["launch code"],
  }]);
  let out = "";
  for (const piece of ["the la", "unch c", "ode is 0000"]) {
    const r = await g.events(ev({ content: piece }));
    out += r.text;
    if (r.cut) break;
  }
  const r = read(out);
  assert(r.error && !r.done, out);
  assert(!r.text.includes("la"), `nothing of the phrase went out: ${r.text}`);
});

Deno.test("stream hold: tool-call arguments are held and redacted like text; flag-only rules hold nothing", async () => {
  const g = guardOf([mail]);
  const args = JSON.stringify({ to: "ana@example.com", body: "hello" });
  let out = "";
  for (let i = 0; i < args.length; i += 4) {
    const call = { index: 0, function: { arguments: args.slice(i, i + 4) } };
    out += (await g.events(ev({ tool_calls: [call] }))).text;
  }
  out += (await g.events(ev({}, "tool_calls") + "data: [DONE]\n\n")).text;
  let said = "";
  for (const line of out.split("\n")) {
    if (!line.startsWith("data: {")) continue;
    for (const ch of JSON.parse(line.slice(6)).choices) {
      for (const c of ch.delta?.tool_calls ?? []) said += c.function.arguments;
    }
  }
  assertEquals(JSON.parse(said), { to: "[EMAIL]", body: "hello" });

  const flag = guardOf([{ ...mail, action: "flag" }]);
  const seen = await feed(flag, "mail ana@example.com", 5);
  assertEquals(seen.at(-1), "mail ana@example.com", "a flag changes nothing and holds nothing");
});

Deno.test("stream hold: under buffer_all the whole answer is sent redacted at its end", async () => {
  const g = guardOf([mail], { bufferAll: true });
  const seen = await feed(g, "mail ana@example.com " + "x".repeat(100), 7);
  assertEquals(seen.at(-1), "", "nothing before the end");
  const end = await g.events(ev({}, "stop") + "data: [DONE]\n\n");
  assertEquals(read(end.text).text, "mail [EMAIL] " + "x".repeat(100));
});

Deno.test("overlapping finds are replaced as one value, with no tail left behind", () => {
  const pass = new GuardPass([policyOf([
    { name: "first", kind: "pattern", action: "redact", patterns: ["abc def"] },
    { name: "second", kind: "pattern", action: "redact", patterns: ["def ghi"] },
  ])]);
  assertEquals(pass.check("x abc def ghi y", "output"), "x [FIRST] y");
});
