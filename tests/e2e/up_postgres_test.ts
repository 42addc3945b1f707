/**
 * `llmgw up --store-url postgres://…` on a fresh PostgreSQL: init seeds the store that serves, so
 * the printed key answers, `ctl` (with the admin token init wrote) works, and the default limits
 * apply. Before, `up` initialised the data directory's SQLite file and then served from
 * PostgreSQL, where there was no administrator, no admin token and no default limits. A data
 * directory made for its own SQLite file is refused there, saying what to do.
 */
import { assert, assertEquals } from "../assert.ts";
import { selfCommand, selfCommandEnv } from "../../core/self_command.ts";
import { startAppliance } from "../helpers/appliance.ts";
import { freshDatabase, postgresMissing } from "../helpers/postgres.ts";
import { skipNote } from "../helpers/skip.ts";
import { loopbackListeners } from "../helpers/llmgw_process.ts";

async function llmgw(args: string[]) {
  const { cmd, args: all } = selfCommand(args);
  const out = await new Deno.Command(cmd, { args: all, env: selfCommandEnv() }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

Deno.test({
  name: `up --store-url seeds the PostgreSQL store it serves from${skipNote(postgresMissing)}`,
  ignore: !!postgresMissing,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const storeUrl = await freshDatabase();
    const app = await startAppliance({ args: ["--store-url", storeUrl] });
    try {
      assert(!app.output().includes("llmgw.db"), app.output());
      const chat = await fetch(`${app.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${app.key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "demo", messages: [{ role: "user", content: "hi" }] }),
      });
      assertEquals(chat.status, 200, await chat.clone().text());
      await chat.body?.cancel();
      // init's per-key defaults are in the store that serves.
      assertEquals(chat.headers.get("x-ratelimit-limit-requests"), "60");
      const keys = await llmgw([
        "ctl",
        "keys",
        "list",
        "--data",
        app.dataDir,
        "--url",
        app.url,
        "--json",
      ]);
      assertEquals(keys.code, 0, `${keys.stdout}\n${keys.stderr}`);
      assert(JSON.parse(keys.stdout).length >= 1, keys.stdout);
    } finally {
      assertEquals(await app.stop(), 0);
    }
    // A second run on the same store and data directory finds it seeded and serves again.
    const again = await startAppliance({ args: ["--store-url", storeUrl], dataDir: app.dataDir });
    try {
      assert(!again.output().includes("Administrator: admin"), again.output());
    } finally {
      assertEquals(await again.stop(), 0);
      await Deno.remove(app.dataDir, { recursive: true });
    }
  },
});

Deno.test({
  name: `up --store-url refuses a data directory made for its own SQLite store${
    skipNote(postgresMissing)
  }`,
  ignore: !!postgresMissing,
  async fn() {
    const dataDir = await Deno.makeTempDir({ prefix: "llmgw-e2e-" });
    try {
      const init = await llmgw(["init", "--data", dataDir]);
      assertEquals(init.code, 0, init.stderr);
      const up = await llmgw([
        "up",
        "--data",
        dataDir,
        ...loopbackListeners,
        "--store-url",
        await freshDatabase(),
      ]);
      assert(up.code !== 0, "refused");
      assert(/holds its own store \(llmgw\.db\)/.test(up.stderr), up.stderr);
      assert(up.stderr.includes("llmgw store copy"), up.stderr);
    } finally {
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
