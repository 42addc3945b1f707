/**
 * `llmgw init --store-url` seeds a PostgreSQL store (first administrator, default limits, the
 * admin token's hash) for a cluster that starts there, as a real llmgw process; a second run
 * adds nothing.
 */
import { adminTokens, limits, users } from "../../db/schema.ts";
import { openStore } from "../../db/store.ts";
import { assertEquals } from "../../tests/assert.ts";
import { freshDatabase, postgresMissing } from "../../tests/helpers/postgres.ts";
import { skipNote } from "../../tests/helpers/skip.ts";
import { sha256Hex } from "../auth/secrets.ts";

const main = new URL("../../main.ts", import.meta.url).pathname;

async function llmgw(args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", main, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, text: dec.decode(out.stdout) + dec.decode(out.stderr) };
}

Deno.test({
  name: `init --store-url seeds PostgreSQL, not the data directory's file${
    skipNote(postgresMissing)
  }`,
  ignore: !!postgresMissing,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "llmgw-init-pg-" });
    const url = await freshDatabase();
    try {
      const first = await llmgw(["init", "--data", dir, "--store-url", url]);
      assertEquals(first.code, 0, first.text);
      assertEquals(first.text.includes("Password:"), true, first.text);
      const again = await llmgw(["init", "--data", dir, "--store-url", url]);
      assertEquals(again.code, 0, again.text);
      assertEquals(again.text.includes("Password:"), false, again.text);

      const store = await openStore(url);
      try {
        const people = await store.db.select().from(users);
        assertEquals(people.map((p) => [p.username, p.role]), [["admin", "administrator"]]);
        assertEquals((await store.db.select().from(limits)).length, 1);
        const token = (await Deno.readTextFile(`${dir}/admin.token`)).trim();
        const [row] = await store.db.select().from(adminTokens);
        assertEquals(row?.tokenHash, await sha256Hex(token));
      } finally {
        await store.close();
      }
      const files = [...Deno.readDirSync(dir)].map((e) => e.name);
      assertEquals(files.includes("llmgw.db"), false, files.join(" "));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
