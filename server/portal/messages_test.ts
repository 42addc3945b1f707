/**
 * The portal's messages: both languages have every key, with the same parameters; every key is
 * used by a page or script (an unused message is a message nobody checks); Turkish is not a copy
 * of English.
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { portalEn } from "../../locales/portal_en.ts";
import { portalTr } from "../../locales/portal_tr.ts";

const params = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

/** Words that read the same in both languages. */
const same = new Set([
  "app_name",
  "col_model",
  "chat_model",
  "connect_continue",
  "gb_unit",
  "plan_cpu",
]);

async function sources(dir: URL): Promise<string> {
  let text = "";
  for await (const e of Deno.readDir(dir)) {
    const url = new URL(e.name + (e.isDirectory ? "/" : ""), dir);
    if (e.isDirectory) text += await sources(url);
    else if (/\.(tsx?|js)$/.test(e.name) && !e.name.endsWith("_test.ts")) {
      text += await Deno.readTextFile(url);
    }
  }
  return text;
}

Deno.test("portal messages: every key in both languages, same parameters, not copied", () => {
  const en = portalEn as Record<string, string>;
  const tr = portalTr as Record<string, string>;
  assertEquals(Object.keys(tr).sort(), Object.keys(en).sort());
  for (const k of Object.keys(en)) {
    assert(tr[k]!.trim().length > 0, `tr.${k} is empty`);
    assertEquals(params(tr[k]!), params(en[k]!), `parameters of ${k}`);
    if (!same.has(k)) assert(tr[k] !== en[k], `tr.${k} is the English text`);
  }
});

Deno.test("portal messages: every key is used by a page or a script", async () => {
  const text = (await sources(new URL("./", import.meta.url))) +
    (await sources(new URL("../../web/", import.meta.url)));
  const unused = Object.keys(portalEn).filter((k) => !new RegExp(`["'\`.]${k}["'\`]`).test(text));
  assertEquals(unused, [], `unused portal messages: ${unused.join(", ")}`);
});
