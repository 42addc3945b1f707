/** `llmgw ctl` against a running appliance, finding it from the data directory alone. */
import OpenAI from "openai";
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { selfCommand, selfCommandEnv } from "../../core/self_command.ts";
import { startAppliance } from "../helpers/appliance.ts";

async function ctl(args: string[]) {
  const { cmd, args: full } = selfCommand(["ctl", ...args]);
  const out = await new Deno.Command(cmd, { args: full, env: selfCommandEnv() }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

Deno.test({
  name: "ctl keys create makes a working key, list shows only its prefix, revoke stops it",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const app = await startAppliance();
    try {
      // `up` listened on port 0; tell ctl the real address, and let it find the token itself.
      const base = ["--data", app.dataDir, "--url", app.url];
      const created = await ctl(["keys", "create", "--name", "alice", "--json", ...base]);
      assertEquals(created.code, 0, created.stderr);
      const key = JSON.parse(created.stdout);
      assertMatch(key.key, /^sk-llmgw-/);
      const client = new OpenAI({ baseURL: `${app.url}/v1`, apiKey: key.key, maxRetries: 0 });
      assert((await client.models.list()).data.length > 0);

      // The engine's load, read by the poller, shows beside its replica.
      let models = "";
      for (let i = 0; i < 10 && !/kv \d+% waiting \d+/.test(models); i++) {
        if (i) await new Promise((r) => setTimeout(r, 300));
        const out = await ctl(["models", "list", ...base]);
        assertEquals(out.code, 0, out.stderr);
        models = out.stdout;
      }
      assertMatch(models, /demo\s+sim\s+local-demo ready 0\/4 kv \d+% waiting 0/);

      const listed = await ctl(["keys", "list", ...base]);
      assertEquals(listed.code, 0);
      assertMatch(listed.stdout, /alice/);
      assertEquals(listed.stdout.includes(key.key), false, "the key itself is never listed");

      const revoked = await ctl(["keys", "revoke", key.id, ...base]);
      assertEquals(revoked.code, 0, revoked.stderr);
      const after = await fetch(`${app.url}/v1/models`, {
        headers: { authorization: `Bearer ${key.key}` },
      });
      assertEquals(after.status, 401);
      await after.body?.cancel();

      const badToken = await ctl(["keys", "list", ...base, "--token", "llmgw_adm_wrong"]);
      assertEquals(badToken.code, 1);
      assertMatch(badToken.stderr, /admin token is required/);
    } finally {
      assertEquals(await app.stop(), 0);
      const log = app.output();
      await Deno.remove(app.dataDir, { recursive: true });
      assertEquals(/llmgw_adm_[A-Za-z0-9_-]{20}/.test(log), false, "no admin token in the logs");
    }
  },
});
