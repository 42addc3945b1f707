/**
 * deploy/install.sh in a temporary root: --dry-run changes nothing and says what it would do; a
 * real run puts the binary and units in place with the prefix's path; a second run (an upgrade)
 * replaces the binary. `llmgw version` prints version, commit and date, from source and from the
 * file a compiled binary carries.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { buildInfo } from "../../core/build_info.ts";
import { VERSION } from "../../core/version.ts";

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
    assertMatch(agent, /AmbientCapabilities=CAP_SETUID CAP_SETGID/);
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
