import { assertEquals, assertMatch } from "../tests/assert.ts";
import { v8Flags } from "./v8_flags.ts";
import { selfCommand } from "./self_command.ts";

const root = new URL("../", import.meta.url);
const arg = `--v8-flags=${v8Flags}`;

Deno.test("v8 flags: every way of starting llmgw from source passes the same flags", async () => {
  const deno = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
  const pkg = JSON.parse(await Deno.readTextFile(new URL("package.json", root)));
  for (const task of ["up", "server"]) {
    assertMatch(deno.tasks[task].command, new RegExp(` ${escape(arg)} main\\.ts ${task}$`));
  }
  assertMatch(pkg.scripts.llmgw, new RegExp(` ${escape(arg)} main\\.ts$`));
  assertEquals(selfCommand(["version"]).args.slice(0, 3), ["run", "-A", arg]);
});

Deno.test("v8 flags: the compile recipe reads them from core/v8_flags.ts", async () => {
  const script = await Deno.readTextFile(new URL("deploy/compile.sh", root));
  const line = script.split("\n").find((l) => l.startsWith("v8_flags=$("))!;
  const out = await new Deno.Command("bash", {
    args: ["-c", `${line}; printf %s "$v8_flags"`],
    cwd: decodeURIComponent(root.pathname),
  }).output();
  assertEquals(new TextDecoder().decode(out.stdout), v8Flags);
  assertMatch(script, /--v8-flags="\$v8_flags"/);
});

Deno.test("v8 flags: this runtime's V8 knows every one of them", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", arg, "console.log('ok')"],
    stderr: "piped",
    stdout: "piped",
  }).output();
  assertEquals(new TextDecoder().decode(out.stderr), "");
  assertEquals([out.code, new TextDecoder().decode(out.stdout).trim()], [0, "ok"]);
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
