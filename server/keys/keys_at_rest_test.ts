/**
 * docs/people-and-money.md's "keys are shown once, stored as sha256": a real control plane on a data folder,
 * a key made through the admin API and used through /v1; then every file under the data folder
 * (the database, its WAL, whatever else is there) is read byte by byte, running and after a clean
 * stop: the key appears nowhere, nor any run of its secret part past the shown prefix; the store
 * holds the key's sha256 and the listing shows only the prefix.
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { startTestControlPlane } from "../../tests/helpers/control_plane.ts";
import { eq } from "drizzle-orm";
import { apiKeys } from "../../db/schema.ts";
import { sha256HexSync } from "../auth/secrets.ts";

/** Every regular file under `dir`, with its bytes as latin1 text (so any byte string matches). */
async function filesUnder(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const latin1 = new TextDecoder("latin1");
  const walk = async (d: string) => {
    for await (const e of Deno.readDir(d)) {
      const p = `${d}/${e.name}`;
      if (e.isDirectory) await walk(p);
      else if (e.isFile) out.set(p, latin1.decode(await Deno.readFile(p)));
    }
  };
  await walk(dir);
  return out;
}

/** Fails if `key`, or any 12-character run of it past its shown prefix, is in any file. */
function assertNowhere(
  files: Map<string, string>,
  key: string,
  prefixLength: number,
  when: string,
) {
  assert(files.size > 0, "the data folder has files");
  const secret = key.slice(prefixLength);
  const runs = Array.from({ length: secret.length - 11 }, (_, i) => secret.slice(i, i + 12));
  for (const [path, text] of files) {
    assert(!text.includes(key), `${when}: the key is in ${path}`);
    for (const run of runs) assert(!text.includes(run), `${when}: part of the key is in ${path}`);
  }
}

Deno.test("an API key is stored only as its sha256: no plaintext anywhere in the data folder", async () => {
  const t = await startTestControlPlane();
  let stopped = false;
  try {
    const made = await t.admin("keys", { method: "POST", body: JSON.stringify({ name: "kept" }) });
    assertEquals(made.status, 201);
    const { id, key, prefix } = await made.json() as { id: string; key: string; prefix: string };
    assert(key.startsWith(prefix) && key.length > prefix.length + 12, key.slice(0, 12));
    const used = await fetch(`${t.cp.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "demo", messages: [{ role: "user", content: "hi" }] }),
    });
    assertEquals(used.status, 200);
    await used.body?.cancel();
    await t.cp.usage.flush();

    const [row] = await t.cp.deps.store.db.select().from(apiKeys).where(eq(apiKeys.id, id));
    assertEquals(row?.keyHash, sha256HexSync(key), "the store holds the key's sha256");
    assertEquals(row?.prefix, prefix);
    const listed = await (await t.admin("keys")).text();
    assert(listed.includes(prefix) && !listed.includes(key), "the listing shows the prefix only");

    assertNowhere(await filesUnder(t.dir), key, prefix.length, "running");
    assert(!t.lines.some((l) => l.includes(key.slice(prefix.length))), "nor in the log");
    await t.close({ keepDir: true });
    stopped = true;
    assertNowhere(await filesUnder(t.dir), key, prefix.length, "stopped");
  } finally {
    if (!stopped) await t.close({ keepDir: true });
    await Deno.remove(t.dir, { recursive: true });
  }
});
