/**
 * deploy/install.sh in a temporary root: --dry-run changes nothing and says what it would do; a
 * real run puts the binary and units in place with the prefix's path; a second run (an upgrade)
 * replaces the binary. `llmgw version` prints version, commit and date, from source and from the
 * file a compiled binary carries. As root, the users it creates are real, and engines.run_as works
 * with them.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { buildInfo } from "../../core/build_info.ts";
import { VERSION } from "../../core/version.ts";
import { which } from "../../core/which.ts";
import { runAsPlan } from "../../agent/run_as.ts";

const script = new URL("../../deploy/install.sh", import.meta.url).pathname;

async function sh(args: string[]) {
  const out = await new Deno.Command("bash", { args: [script, ...args] }).output();
  const d = new TextDecoder();
  return { code: out.code, text: d.decode(out.stdout) + d.decode(out.stderr) };
}

async function files(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    for await (const e of Deno.readDir(d)) {
      const p = `${d}/${e.name}`;
      if (e.isDirectory) await walk(p);
      else out.push(p.slice(dir.length));
    }
  };
  await walk(dir);
  return out.sort();
}

Deno.test("install.sh: dry run changes nothing; a run into a root installs binary and units", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "llmgw-install-" });
  try {
    const bin = `${tmp}/llmgw-built`;
    await Deno.writeTextFile(bin, "#!/bin/sh\necho v1\n", { mode: 0o755 });
    const root = `${tmp}/root`;
    await Deno.mkdir(root);

    const dry = await sh(["--binary", bin, "--prefix", "/opt/llmgw", "--root", root, "--dry-run"]);
    assertEquals(dry.code, 0, dry.text);
    assertMatch(dry.text, /install -m 0755 .*llmgw-built .*\/opt\/llmgw\/bin\/llmgw\.new/);
    assertMatch(dry.text, /write .*etc\/systemd\/system\/llmgw-agent\.service/);
    assertEquals(await files(root), [], "a dry run writes nothing");

    const real = await sh(["--binary", bin, "--prefix", "/opt/llmgw", "--root", root]);
    assertEquals(real.code, 0, real.text);
    const installed = await files(root);
    for (
      const f of [
        "/opt/llmgw/bin/llmgw",
        "/etc/systemd/system/llmgw.service",
        "/etc/systemd/system/llmgw-agent.service",
        "/etc/systemd/system/llmgw-appliance.service",
      ]
    ) assert(installed.includes(f), `${f} installed: ${installed.join(", ")}`);
    assertEquals((await Deno.stat(`${root}/opt/llmgw/bin/llmgw`)).mode! & 0o777, 0o755);
    const unit = await Deno.readTextFile(`${root}/etc/systemd/system/llmgw.service`);
    assertMatch(unit, /^ExecStart=\/opt\/llmgw\/bin\/llmgw server --data \/var\/lib\/llmgw$/m);
    assert(!unit.includes("@BIN@"));
    for (
      const h of ["NoNewPrivileges=true", "ProtectSystem=strict", "PrivateTmp=true", "User=llmgw"]
    ) {
      assert(unit.includes(h), h);
    }
    const agent = await Deno.readTextFile(`${root}/etc/systemd/system/llmgw-agent.service`);
    assertMatch(agent, /AmbientCapabilities=CAP_SETUID CAP_SETGID CAP_KILL/);
    assert(installed.some((f) => f.startsWith("/opt/llmgw/share/doc/llmgw/")), "docs installed");

    // Upgrade: the binary is replaced, nothing left half-written.
    await Deno.writeTextFile(bin, "#!/bin/sh\necho v2\n", { mode: 0o755 });
    const again = await sh(["--binary", bin, "--prefix", "/opt/llmgw", "--root", root]);
    assertEquals(again.code, 0, again.text);
    assertMatch(await Deno.readTextFile(`${root}/opt/llmgw/bin/llmgw`), /v2/);
    assert(!(await files(root)).some((f) => f.endsWith(".new")));

    const bad = await sh(["--binary", `${tmp}/missing`, "--root", root]);
    assertEquals(bad.code, 1);
    assertMatch(bad.text, /not an executable/);
    const role = await sh(["--binary", bin, "--root", root, "--role", "nope"]);
    assertEquals(role.code, 2);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("llmgw version: version, commit and date, from a checkout and from a build's file", async () => {
  const src = await buildInfo();
  assertEquals(src.version, VERSION);
  assertEquals(src.kind, "source");
  const git = await new Deno.Command("git", {
    args: ["rev-parse", "--short=12", "HEAD"],
    stdout: "piped",
  })
    .output().catch(() => undefined);
  if (git?.success) {
    assert(src.commit.startsWith(new TextDecoder().decode(git.stdout).trim()), src.commit);
    assertMatch(src.date, /^\d{4}-\d{2}-\d{2}T/);
  }
  const dir = await Deno.makeTempDir({ prefix: "llmgw-bi-" });
  try {
    await Deno.writeTextFile(
      `${dir}/build_info.json`,
      JSON.stringify({ version: "9.9.9", commit: "abc123", date: "2026-01-02T03:04:05Z" }),
    );
    const built = await buildInfo(new URL(`file://${dir}/build_info.json`));
    assertEquals(built, {
      version: "9.9.9",
      commit: "abc123",
      date: "2026-01-02T03:04:05Z",
      kind: "compiled",
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

const canCreateUsers = Deno.uid() === 0 && (await which("setpriv")) !== undefined &&
  (await which("useradd")) !== undefined;

/** `id` for the user and group that `engines.run_as` gives, run exactly as the agent runs it. */
async function idAsRunAs(runAs: string): Promise<{ ok: boolean; text: string }> {
  const plan = runAsPlan(runAs, "id", []);
  const out = await new Deno.Command(plan.cmd, {
    args: plan.args,
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const d = new TextDecoder();
  return { ok: out.success, text: d.decode(out.stdout) + d.decode(out.stderr) };
}

Deno.test({
  name: "install.sh's users: the engine user has a group of its name, so run_as starts engines" +
    (canCreateUsers ? "" : " [ignored: needs root, setpriv and useradd]"),
  ignore: !canCreateUsers,
  fn: async () => {
    const tag = crypto.randomUUID().slice(0, 6);
    const user = `llmgwt-s${tag}`;
    const engine = `llmgwt-x${tag}`;
    const users = new URL("../../deploy/create_users.sh", import.meta.url).pathname;
    const run = async (...args: string[]) => {
      const out = await new Deno.Command("bash", { args: [users, ...args] }).output();
      return { code: out.code, text: new TextDecoder().decode(out.stdout) };
    };
    const del = async () => {
      for (const [cmd, name] of [["userdel", engine], ["userdel", user], ["groupdel", engine]]) {
        await new Deno.Command(cmd!, { args: [name!], stderr: "null" }).output();
      }
      await new Deno.Command("groupdel", { args: [user], stderr: "null" }).output();
    };
    try {
      const args = ["--role", "agent", "--user", user, "--engine-user", engine, "--data", "/x"];
      const first = await run(...args);
      assertEquals(first.code, 0, first.text);
      const id = await idAsRunAs(engine);
      assert(id.ok, `setpriv with engines.run_as: ${engine} works: ${id.text}`);
      assertMatch(id.text, new RegExp(`uid=\\d+\\(${engine}\\) gid=\\d+\\(${engine}\\)`));
      assert(id.text.includes(`(${user})`), `the engine user is in ${user}'s group: ${id.text}`);
      // Again (an upgrade): nothing to do, nothing breaks.
      assertEquals((await run(...args)).code, 0);

      // An engine user left by an earlier install.sh (service group as its primary, no group of
      // its own) is mended.
      await del();
      await new Deno.Command("groupadd", { args: ["--system", user] }).output();
      await new Deno.Command("useradd", { args: ["--system", "--gid", user, engine] }).output();
      assert(!(await idAsRunAs(engine)).ok, "the old layout fails as the issue says");
      const mended = await run(...args);
      assertEquals(mended.code, 0, mended.text);
      const after = await idAsRunAs(engine);
      assert(after.ok, after.text);
      assert(after.text.includes(`(${user})`), after.text);
    } finally {
      await del();
    }
  },
});

const analyze = await which("systemd-analyze");

Deno.test({
  name: "the units pass systemd-analyze verify; the agent's leaves engines to the next agent" +
    (analyze ? "" : " [ignored: systemd-analyze not installed]"),
  ignore: analyze === undefined,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "llmgw-units-" });
    try {
      const units = new URL("../../deploy/systemd/", import.meta.url).pathname;
      const names: string[] = [];
      for await (const e of Deno.readDir(units)) {
        if (!e.name.endsWith(".service")) continue;
        const text = await Deno.readTextFile(`${units}${e.name}`);
        // ExecStart must name an executable that exists here.
        await Deno.writeTextFile(`${dir}/${e.name}`, text.replaceAll("@BIN@", Deno.execPath()));
        names.push(e.name);
      }
      assertEquals(names.length, 3);
      const out = await new Deno.Command(analyze!, {
        args: ["verify", ...names.map((n) => `./${n}`)],
        cwd: dir,
        stdout: "piped",
        stderr: "piped",
      }).output();
      const d = new TextDecoder();
      const text = d.decode(out.stdout) + d.decode(out.stderr);
      assert(out.success, text);
      assertEquals(text.trim(), "", "no warnings");
      const agent = await Deno.readTextFile(`${dir}/llmgw-agent.service`);
      assertMatch(agent, /^KillMode=process$/m);
      assertMatch(agent, /^AmbientCapabilities=.*CAP_KILL/m);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
