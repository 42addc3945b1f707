/**
 * Backup while serving, restore while stopped: `ctl backup` under a steady load writes a store in
 * which every key and usage row made before it is found; `llmgw restore` refuses while a server
 * holds the data directory, then puts the copy in place, and the restored control plane serves
 * the old keys.
 */
import { assert, assertEquals, assertMatch } from "../../tests/assert.ts";
import { startTestControlPlane } from "../../tests/helpers/control_plane.ts";
import { selfCommand, selfCommandEnv } from "../../core/self_command.ts";
import { ctlCommand } from "../cli/ctl/mod.ts";
import { apiKeys, usage } from "../../db/schema.ts";
import { openStore } from "../../db/store.ts";

async function llmgw(args: string[]): Promise<{ code: number; text: string }> {
  const { cmd, args: full } = selfCommand(args);
  const out = await new Deno.Command(cmd, { args: full, env: selfCommandEnv() }).output();
  const d = new TextDecoder();
  return { code: out.code, text: d.decode(out.stdout) + d.decode(out.stderr) };
}

Deno.test("backup under load, restore on a stopped control plane: every key and row is there", async () => {
  const t = await startTestControlPlane();
  const file = `${await Deno.makeTempDir({ prefix: "llmgw-bk-" })}/backup.db`;
  let stopLoad = false;
  try {
    const keys = [];
    for (let i = 0; i < 5; i++) keys.push(await t.cp.deps.keys.create({ name: `k${i}` }));
    for (let i = 0; i < 10; i++) {
      const r = await t.chat({ model: "demo", messages: [{ role: "user", content: `q${i}` }] });
      await r.body?.cancel();
    }
    await t.cp.usage.flush();
    const before = await t.cp.deps.store.db.select({ id: usage.id }).from(usage);
    assertEquals(before.length, 10);

    // Load goes on while the backup is taken: requests, and keys being made.
    let made = 0;
    const load = (async () => {
      while (!stopLoad) {
        const r = await t.chat({ model: "demo", messages: [{ role: "user", content: "more" }] });
        await r.body?.cancel();
        await t.cp.deps.keys.create({ name: `load${made++}` });
      }
    })();
    await new Promise((r) => setTimeout(r, 200));
    const lines: string[] = [];
    const orig = console.log;
    console.log = (...a: unknown[]) => lines.push(a.join(" "));
    let code: number;
    try {
      code = await ctlCommand.run(["backup", file, "--url", t.cp.url, "--token", t.adminToken]);
    } finally {
      console.log = orig;
    }
    assertEquals(code, 0);
    assertMatch(lines.join("\n"), /Backup written to/);
    assertEquals((await Deno.stat(file)).mode! & 0o777, 0o600);
    await new Promise((r) => setTimeout(r, 100));
    stopLoad = true;
    await load;
    assert(made > 0, "load ran during the backup");

    // A second backup to the same name is refused, not overwritten.
    console.log = () => {};
    try {
      const again = await ctlCommand.run([
        "backup",
        file,
        "--url",
        t.cp.url,
        "--token",
        t.adminToken,
      ])
        .catch((e) => e);
      assertMatch(String(again), /exists/);
    } finally {
      console.log = orig;
    }

    const refused = await llmgw(["restore", file, "--data", t.dir]);
    assertEquals(refused.code, 1, refused.text);
    assertMatch(refused.text, /Another llmgw is running/);

    await t.cp.close();
    const restored = await llmgw(["restore", file, "--data", t.dir]);
    assertEquals(restored.code, 0, restored.text);
    assertMatch(restored.text, /before-restore-/);

    const store = await openStore(`${t.dir}/llmgw.db`);
    try {
      const ids = new Set((await store.db.select({ id: usage.id }).from(usage)).map((r) => r.id));
      for (const r of before) assert(ids.has(r.id), `usage row ${r.id} restored`);
      const keyIds = new Set(
        (await store.db.select({ id: apiKeys.id }).from(apiKeys)).map((k) => k.id),
      );
      for (const k of keys) assert(keyIds.has(k.id), `key ${k.name} restored`);
    } finally {
      store.close();
    }

    // The restored control plane serves a key made before the backup.
    const again = await startTestControlPlane({ dir: t.dir });
    try {
      const r = await fetch(`${again.cp.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${keys[0]!.key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "demo", messages: [{ role: "user", content: "hi" }] }),
      });
      assertEquals(r.status, 200);
      await r.body?.cancel();
    } finally {
      await again.close();
    }
  } finally {
    stopLoad = true;
    await t.engine.close();
    await Deno.remove(t.dir, { recursive: true }).catch(() => {});
    await Deno.remove(file.replace(/\/[^/]*$/, ""), { recursive: true });
  }
});

Deno.test("restore refuses a file that is not an llmgw store", async () => {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-rs-" });
  try {
    await Deno.writeTextFile(`${dir}/junk.db`, "not a database at all, just some words");
    const r = await llmgw(["restore", `${dir}/junk.db`, "--data", `${dir}/data`]);
    assertEquals(r.code, 1, r.text);
    assertMatch(r.text, /not a readable SQLite database|damaged|not an llmgw store/);
    const missing = await llmgw(["restore", `${dir}/nope.db`, "--data", `${dir}/data`]);
    assertEquals(missing.code, 2);
    assertMatch(missing.text, /no such file/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
