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
      assertMatch(models, /demo\s+sim\s+\S+ ready 0\/4 kv \d+% waiting 0/);

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

Deno.test({
  name: "ctl covers orgs, teams, projects, people, keys, limits and audit, each with --json",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const app = await startAppliance();
    try {
      const base = ["--data", app.dataDir, "--url", app.url, "--json"];
      const run = async (...args: string[]) => {
        const r = await ctl([...args, ...base]);
        assertEquals(r.code, 0, `ctl ${args.join(" ")}: ${r.stderr}`);
        return JSON.parse(r.stdout);
      };
      const org = await run("orgs", "create", "acme");
      const team = await run("teams", "create", "--org", org.id, "core");
      const project = await run("projects", "create", "--team", team.id, "app");
      const person = await run(
        "people",
        "add",
        "mel",
        "--role",
        "member",
        "--org",
        org.id,
        "--email",
        "mel@acme.example",
      );
      assertEquals(person.password.length, 20);
      assertEquals(
        (await run("people", "list")).some((p: { id: string }) => p.id === person.id),
        true,
      );
      const key = await run(
        "keys",
        "create",
        "--name",
        "mel",
        "--project",
        project.id,
        "--person",
        person.id,
      );
      assertMatch(key.key, /^sk-llmgw-/);

      // init wrote the per-key defaults; a project level narrows them, partially.
      const global = await run("limits", "show", "--global");
      assertEquals([global.limits.rpm, global.limits.tpm], [60, 200000]);
      await run("limits", "set", "--project", project.id, "--rpm", "30", "--tpm", "5000");
      const partial = await run("limits", "set", "--project", project.id, "--rpm", "20");
      assertEquals([partial.limits.rpm, partial.limits.tpm], [20, 5000]);
      const share = await run(
        "limits",
        "set",
        "--project",
        project.id,
        "--max-parallel",
        "4",
        "--weight",
        "2",
      );
      assertEquals([share.limits.maxParallel, share.limits.weight, share.currency], [4, 2, "USD"]);
      const replaced = await run(
        "limits",
        "set",
        "--project",
        project.id,
        "--budget-day",
        "1000000",
        "--replace",
      );
      assertEquals([replaced.limits.rpm, replaced.limits.tpm], [null, null]);
      assertEquals(replaced.limits.budgetDayMicros, 1000000);
      const eff = await run("limits", "show", "--key", key.id);
      assertEquals(eff.effective.rpm.value, 60);

      const res = await fetch(`${app.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key.key}`, "content-type": "application/json" },
        body: JSON.stringify({
          model: "demo",
          max_tokens: 4,
          messages: [{ role: "user", content: "hi" }],
        }),
      });
      assertEquals(res.status, 200);
      assertEquals(res.headers.get("x-ratelimit-limit-requests"), "60");
      await res.body?.cancel();

      // `usage list` prints the recent rows, not the month's sums (usage is written every 50 ms).
      let recent: { keyId: string; model: string; status: number }[] = [];
      for (let i = 0; i < 20 && !recent.some((r) => r.keyId === key.id); i++) {
        if (i) await new Promise((r) => setTimeout(r, 100));
        recent = await run("usage", "list", "--limit", "5");
      }
      const row = recent.find((r) => r.keyId === key.id);
      assertEquals([row?.model, row?.status], ["demo", 200]);
      const table = await ctl(["usage", "list", "--data", app.dataDir, "--url", app.url]);
      assertEquals(table.code, 0, table.stderr);
      assertMatch(table.stdout, new RegExp(`^When\\s+Key\\s+Model`));
      assertMatch(table.stdout, new RegExp(`\\(${key.id}\\)\\s+demo\\s+\\d+\\s+4\\s`));

      const trail = await run("audit", "--target", project.id);
      assertEquals(trail.map((r: { action: string }) => r.action), [
        "limits.replace",
        "limits.update",
        "limits.update",
        "limits.update",
        "project.create",
      ]);
      const text = await ctl(["audit", "--since", "1h", "--data", app.dataDir, "--url", app.url]);
      assertEquals(text.code, 0, text.stderr);
      assertMatch(text.stdout, /key\.create/);
      assertEquals(text.stdout.includes(key.key), false);
      const help = await ctl(["--help"]);
      for (const area of ["orgs", "teams", "projects", "people", "keys", "limits", "audit"]) {
        assertMatch(help.stdout, new RegExp(`  ${area} `));
      }
    } finally {
      assertEquals(await app.stop(), 0);
      await Deno.remove(app.dataDir, { recursive: true });
    }
  },
});
