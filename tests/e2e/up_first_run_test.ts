/**
 * `llmgw up`'s first runs as a new user meets them: what it was given is checked before init, the
 * one-time administrator password outlives a first run that fails after init (a 0600 file the
 * banner names, deleted at the first sign-in), and the API key is printed in full only when made.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { selfCommand, selfCommandEnv } from "../../core/self_command.ts";
import { startAppliance } from "../helpers/appliance.ts";
import { loopbackListeners } from "../helpers/llmgw_process.ts";

async function up(args: string[]) {
  const { cmd, args: full } = selfCommand(["up", ...args]);
  const out = await new Deno.Command(cmd, { args: full, env: selfCommandEnv() }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  return { code: out.code, text };
}

const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

Deno.test("up --model missing.gguf (or a wrong flag) is refused before init, in a sentence, with nothing made", async () => {
  const dir = `${await Deno.makeTempDir({ prefix: "llmgw-up-missing-" })}/data`;
  try {
    const r = await up(["--data", dir, ...loopbackListeners, "--model", "/nowhere/missing.gguf"]);
    assertEquals(r.code, 2, r.text);
    assertMatch(r.text, /--model \/nowhere\/missing\.gguf: no such file/);
    assertEquals(/\n\s+at /.test(r.text), false, `no stack trace:\n${r.text}`);
    assertEquals(/Password:/.test(r.text), false, "no password was made and lost");
    assertEquals(await exists(dir), false, "init did not run");

    const flag = await up(["--data", dir, ...loopbackListeners, "--router-max-body-bytes", "lots"]);
    assertEquals(flag.code, 2, flag.text);
    assertMatch(flag.text, /Invalid setting router\.max_body_bytes/);
    assertEquals(await exists(dir), false, "a wrong flag is refused before init too");
  } finally {
    await Deno.remove(dir.replace(/\/data$/, ""), { recursive: true });
  }
});

Deno.test({
  name:
    "the first password survives a failed first run until the first sign-in; the API key is printed only when made",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "llmgw-up-first-" });
    const passwordFile = `${dir}/initial-admin-password`;
    try {
      // A first run that fails after init: its listen port is taken.
      const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const busy = `127.0.0.1:${taken.addr.port}`;
      const failed = await up([
        "--data",
        dir,
        ...loopbackListeners,
        "--listen",
        busy,
      ]);
      taken.close();
      assert(failed.code !== 0, failed.text);
      const shown = /Password:\s+(\S+)/.exec(failed.text)?.[1];
      assert(shown, `init showed the password:\n${failed.text}`);
      assertMatch(failed.text, new RegExp(`kept in ${passwordFile}`));
      assertEquals((await Deno.readTextFile(passwordFile)).trim(), shown);
      assertEquals(((await Deno.stat(passwordFile)).mode ?? 0) & 0o777, 0o600);

      // The next run names the file, and prints the API key it makes, once.
      const second = await startAppliance({ dataDir: dir });
      assertEquals(await second.stop(), 0);
      assertMatch(second.output(), new RegExp(`password: in ${passwordFile}`));
      assert(second.output().includes(second.key), "a new key is printed in full");

      // Later runs say where the key is kept, not the key (stdout goes to the journal).
      const third = await startAppliance({ dataDir: dir });
      try {
        assertEquals(third.key, second.key);
        assertEquals(third.output().includes(third.key), false, "the key is not printed again");
        assertMatch(
          third.output(),
          new RegExp(`API key: sk-llmgw-\\S*… \\(kept in ${dir}/local\\.key`),
        );
        assertMatch(third.output(), new RegExp(`password: in ${passwordFile}`));
        // The first sign-in deletes the file: from then on the password is the owner's alone.
        const res = await fetch(`${third.url}/auth/login`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email: "admin", password: shown }),
        });
        assertEquals(res.status, 200, await res.text());
        assertEquals(await exists(passwordFile), false, "deleted at the first sign-in");
      } finally {
        assertEquals(await third.stop(), 0);
      }
      const fourth = await startAppliance({ dataDir: dir });
      assertEquals(await fourth.stop(), 0);
      assertEquals(fourth.output().includes("initial-admin-password"), false);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
