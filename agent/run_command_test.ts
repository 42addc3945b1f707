/**
 * A short-lived tool is bounded as a whole: a `--version` that leaves a child holding its output
 * pipe returns within the time limit, and the child goes with it.
 */
import { assert, assertEquals } from "../tests/assert.ts";
import { isGone } from "./proc_tree.ts";
import { runCommand } from "./run_command.ts";

async function script(body: string): Promise<{ path: string; dir: string }> {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-runcmd-" });
  const path = `${dir}/engine`;
  await Deno.writeTextFile(path, `#!/bin/sh\n${body}\n`);
  await Deno.chmod(path, 0o755);
  return { path, dir };
}

Deno.test("runCommand: a child left holding the output pipe cannot hang the probe", async () => {
  const { path, dir } = await script(
    `sleep 60 & echo $! > ${"$(dirname $0)"}/child.pid; echo "version: 7 (abc)"`,
  );
  try {
    const started = Date.now();
    const res = await runCommand(1_500)(path, ["--version"]);
    const took = Date.now() - started;
    assert(took < 5_000, `returned after ${took} ms, not after the child's 60 s`);
    assert(res.output.includes("version: 7"), res.output);
    const child = Number((await Deno.readTextFile(`${dir}/child.pid`)).trim());
    for (let i = 0; i < 40 && !isGone(child); i++) await new Promise((r) => setTimeout(r, 50));
    assert(isGone(child), `the child ${child} was stopped with the probe`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("runCommand: a tool that hangs itself is killed at the limit", async () => {
  const { path, dir } = await script("echo partial; exec sleep 60");
  try {
    const started = Date.now();
    const res = await runCommand(800)(path, []);
    assert(Date.now() - started < 5_000);
    assertEquals(res.ok, false);
    assert(res.output.includes("partial"), res.output);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("runCommand: an ordinary tool's output and success", async () => {
  const ok = await runCommand()("sh", ["-c", "echo out; echo err >&2"]);
  assertEquals(ok.ok, true);
  assert(ok.output.includes("out") && ok.output.includes("err"));
  const missing = await runCommand()("/nonexistent/tool", []);
  assertEquals(missing.ok, false);
});
