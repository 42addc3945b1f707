/** `llmgw init` through the real command line: what it makes, and that a second run changes nothing. */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { selfCommand, selfCommandEnv } from "../../core/self_command.ts";

async function llmgw(args: string[], env: Record<string, string> = {}) {
  const { cmd, args: full } = selfCommand(args);
  const out = await new Deno.Command(cmd, { args: full, env: { ...selfCommandEnv(), ...env } })
    .output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  return { code: out.code, text };
}

async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for await (const e of Deno.readDir(dir)) {
    // The shared-memory index is rewritten by every open; it holds no data.
    if (!e.isFile || e.name.endsWith("-shm")) continue;
    const bytes = await Deno.readFile(`${dir}/${e.name}`);
    const digest = await crypto.subtle.digest("SHA-256", bytes);
    const mode = ((await Deno.stat(`${dir}/${e.name}`)).mode ?? 0) & 0o777;
    out[e.name] = `${mode.toString(8)} ${btoa(String.fromCharCode(...new Uint8Array(digest)))}`;
  }
  return out;
}

Deno.test("init creates the data directory once; a second run changes nothing and says so", async () => {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-init-" });
  try {
    const first = await llmgw(["init", "--data", dir]);
    assertEquals(first.code, 0, first.text);
    assertMatch(first.text, /Password:\s+\S{20}/);
    const files = await snapshot(dir);
    for (const secret of ["admin.token", "cluster.secret", "llmgw.db"]) {
      assert(files[secret]?.startsWith("600 "), `${secret} is mode 0600 (${files[secret]})`);
    }
    assert(files["server.yaml"] && files["llmgw.db"]);
    const yaml = await Deno.readTextFile(`${dir}/server.yaml`);
    assertMatch(yaml, /listen: "127\.0\.0\.1:8080"/);

    const tls = await snapshot(`${dir}/tls`);
    for (const key of ["ca.key", "server.key"]) {
      assert(tls[key]?.startsWith("600 "), `tls/${key} is mode 0600 (${tls[key]})`);
    }
    assert(tls["ca.pem"] && tls["server.pem"]);

    const second = await llmgw(["init", "--data", dir]);
    assertEquals(second.code, 0, second.text);
    assertMatch(second.text, /left unchanged: .*admin\.token/);
    assertEquals(/Password:/.test(second.text), false, "the password is shown only once");
    assertEquals(await snapshot(dir), files);
    assertEquals(await snapshot(`${dir}/tls`), tls, "the CA and certificate are left alone");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a server.yaml with an unknown key or a wrong type is refused at start with the key's path", async () => {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-cfg-" });
  try {
    await Deno.writeTextFile(`${dir}/server.yaml`, "router:\n  max_body_byte: 10\n");
    const unknown = await llmgw(["server", "--data", dir]);
    assertEquals(unknown.code, 2);
    assertMatch(unknown.text, /Unknown setting in .*server\.yaml: router\.max_body_byte/);

    await Deno.writeTextFile(`${dir}/server.yaml`, "router:\n  max_body_bytes: lots\n");
    const wrong = await llmgw(["server", "--data", dir]);
    assertEquals(wrong.code, 2);
    assertMatch(wrong.text, /Invalid setting router\.max_body_bytes/);

    const flag = await llmgw(["server", "--data", dir, "--router-max-body-bytes", "12"]);
    assertEquals(flag.code, 2, "a flag is checked as strictly as the file");
    assertMatch(flag.text, /flag --router-max-body-bytes/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a damaged store gives a sentence, not a stack trace", async () => {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-bad-" });
  try {
    await Deno.writeTextFile(`${dir}/llmgw.db`, "garbage ".repeat(1000));
    const r = await llmgw(["server", "--data", dir, "--listen", "127.0.0.1:0"]);
    assertEquals(r.code, 1);
    assertMatch(r.text, /damaged or is not an llmgw database/);
    assertEquals(/\n\s+at /.test(r.text), false, "no stack trace");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
