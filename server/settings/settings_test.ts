/**
 * Live settings: seeded into the store at the first start, changed with `ctl config set|edit`,
 * applied at once where marked live (a queue timeout shortened takes effect on the next request
 * without a restart), stored for the next start otherwise; the store beats server.yaml after the
 * first start, and a flag beats the store.
 */
import { assert, assertEquals, assertMatch } from "../../tests/assert.ts";
import { startTestControlPlane } from "../../tests/helpers/control_plane.ts";
import { ctlCommand } from "../cli/ctl/mod.ts";

async function ctl(args: string[], env: Record<string, string> = {}) {
  const lines: string[] = [];
  const orig = console.log;
  const saved: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(env)) {
    saved[k] = Deno.env.get(k);
    Deno.env.set(k, v);
  }
  console.log = (...a: unknown[]) => lines.push(a.join(" "));
  try {
    const code = await ctlCommand.run(args);
    return { code, out: lines.join("\n") };
  } finally {
    console.log = orig;
    for (const [k, v] of Object.entries(saved)) {
      v === undefined ? Deno.env.delete(k) : Deno.env.set(k, v);
    }
  }
}

Deno.test("live settings: a changed queue timeout applies without a restart and survives one", async () => {
  const t = await startTestControlPlane();
  const base = () => ["--url", t.cp.url, "--token", t.adminToken];
  try {
    assertEquals(t.cp.deps.settings!.unapplied(), [], "every live setting has an applier");
    t.cp.deps.replicas.get("local/demo")!.slots = 0;
    const set = await ctl(["config", "set", "router.queue_timeout_ms", "200", ...base()]);
    assertEquals(set.code, 0);
    assertMatch(set.out, /Applied now: router\.queue_timeout_ms/);
    const started = Date.now();
    const res = await t.chat(
      { model: "demo", messages: [{ role: "user", content: "x" }] },
    );
    assertEquals(res.status, 503);
    await res.body?.cancel();
    const waited = Date.now() - started;
    assert(waited < 3_000, `refused after ${waited} ms, not the 30 s default`);
    t.cp.deps.replicas.get("local/demo")!.slots = 4;

    // log_level moves the running logger.
    await ctl(["config", "set", "log_level", "error", ...base()]);
    assertEquals(t.logLevel.level, "error");

    // Not live: stored, applies at the next start, and said so.
    const restart = await ctl(["config", "set", "nodes.heartbeat_ms", "1500", ...base()]);
    assertMatch(restart.out, /applies after a restart: nodes\.heartbeat_ms/);

    // A wrong value changes nothing, and says which key.
    const bad = await t.admin("settings", {
      method: "PUT",
      body: JSON.stringify({ "router.max_attempts": 3, "router.queue_timeout_ms": "soon" }),
    });
    assertEquals(bad.status, 400);
    assertMatch((await bad.json()).error.message, /router\.queue_timeout_ms/);
    const unknown = await t.admin("settings", {
      method: "PUT",
      body: JSON.stringify({ "router.nope": 1 }),
    });
    assertEquals(unknown.status, 400);

    // edit: $EDITOR gets YAML; the keys changed in it are applied.
    const editor =
      `sed -i -e 's/^  max_attempts: 3$/  max_attempts: 5/' -e 's/^  quiet_ms: 3600000$/  quiet_ms: 60000/'`;
    const edited = await ctl(["config", "edit", ...base()], { EDITOR: editor });
    assertEquals(edited.code, 0, edited.out);
    assertMatch(edited.out, /Applied now: .*router\.max_attempts/);
    assertEquals(t.cp.deps.routing.settings.maxAttempts, 5);
    const got = await ctl(["config", "get", "notify.quiet_ms", ...base()]);
    assertEquals(got.out, "60000");
    const all = await ctl(["config", "get", ...base()]);
    assertMatch(all.out, /router\.queue_timeout_ms\s+200\s+live\s+store/);
    assertMatch(all.out, /listen\s+\S+\s+at restart/);

    // After a restart the store's values win over server.yaml; a flag wins over the store.
    await t.close({ keepDir: true });
    const again = await startTestControlPlane({
      dir: t.dir,
      flags: { "router-max-attempts": "2" },
    });
    try {
      assertEquals(again.cp.deps.routing.settings.queueTimeoutMs, 200);
      assertEquals(again.cp.deps.routing.settings.maxAttempts, 2);
      const view = again.cp.deps.settings!.list();
      assertEquals(view.find((s) => s.key === "router.max_attempts")?.source, "flag/env");
      assertEquals(view.find((s) => s.key === "nodes.heartbeat_ms")?.value, 1500);
    } finally {
      await again.close();
    }
  } finally {
    await t.close().catch(() => {});
  }
});

Deno.test("the audit row of a settings change names each setting, before and after", async () => {
  const t = await startTestControlPlane();
  try {
    const set = await ctl(
      [
        "config",
        "set",
        "router.queue_timeout_ms",
        "250",
        "--url",
        t.cp.url,
        "--token",
        t.adminToken,
      ],
    );
    assertEquals(set.code, 0);
    const res = await t.admin("audit");
    const row = (await res.json()).data.find((r: { action: string }) =>
      r.action === "settings.set"
    );
    assert(row, "a settings.set row");
    assertEquals(row.before["router.queue_timeout_ms"], 30_000);
    assertEquals(row.after["router.queue_timeout_ms"], 250);
    assertEquals(
      JSON.stringify(row).includes("<secret"),
      false,
      "no setting is taken for a secret",
    );
  } finally {
    await t.close();
  }
});

Deno.test("a server.yaml edited after the first start is named at start, each differing setting with the command that applies it", async () => {
  const t = await startTestControlPlane();
  await t.close({ keepDir: true });
  const path = `${t.dir}/server.yaml`;
  const yaml = await Deno.readTextFile(path);
  const edited = yaml.replace(/^ {2}queue_timeout_ms: 30000$/m, "  queue_timeout_ms: 12345")
    .replace(/^log_level: "info"$/m, 'log_level: "warn"');
  assert(edited.includes("12345") && edited.includes('log_level: "warn"'), "the edit took");
  await Deno.writeTextFile(path, edited);
  const again = await startTestControlPlane({ dir: t.dir });
  try {
    // The store still decides: the edit is not taken silently, nor silently ignored.
    assertEquals(again.cp.deps.routing.settings.queueTimeoutMs, 30_000);
    const said = again.lines.map((l) => JSON.parse(l)).filter((l) =>
      l.msg?.includes("server.yaml")
    );
    const bySetting = new Map(said.map((l) => [l.setting, l]));
    assertEquals(
      [...bySetting.keys()].sort(),
      ["log_level", "router.queue_timeout_ms"],
      JSON.stringify(said),
    );
    const q = bySetting.get("router.queue_timeout_ms")!;
    assertEquals([q.file_value, q.stored_value], [12345, 30000]);
    assertEquals(q.apply, "llmgw ctl config set router.queue_timeout_ms 12345");
    assertEquals(bySetting.get("log_level")!.apply, "llmgw ctl config set log_level warn");
  } finally {
    await again.close();
  }
});
