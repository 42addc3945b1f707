/**
 * `llmgw up` on a terminal, as a person runs it: under `script` (a pseudo-terminal) it says each
 * stage its model's first replica reaches and draws a progress line for the stage in hand, with
 * the log lines clearing it first; Ctrl-C typed on that terminal stops it cleanly.
 */
import { assertEquals, assertMatch } from "../assert.ts";
import { selfCommand, selfCommandEnv } from "../../core/self_command.ts";
import { loopbackListeners } from "../helpers/llmgw_process.ts";

const noScript = (await new Deno.Command("sh", { args: ["-c", "command -v script"] }).output())
    .success
  ? undefined
  : "needs util-linux's script for a pseudo-terminal";

Deno.test({
  name: "up on a terminal: its model's startup stages and a progress line; Ctrl-C stops it" +
    (noScript ? ` (ignored: ${noScript})` : ""),
  ignore: !!noScript,
}, async () => {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-up-tty-" });
  const { cmd, args } = selfCommand(["up", "--data", dir, ...loopbackListeners]);
  const line = [cmd, ...args].map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(" ");
  const child = new Deno.Command("script", {
    // exec: Ctrl-C reaches llmgw alone, not a shell waiting on it.
    args: ["-qec", `stty cols 160 2>/dev/null; exec ${line}`, "/dev/null"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    clearEnv: true,
    env: { ...selfCommandEnv(), PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
  }).spawn();
  let text = "";
  const pump = (async () => {
    for await (const c of child.stdout.pipeThrough(new TextDecoderStream())) text += c;
  })();
  const stdin = child.stdin.getWriter();
  try {
    const deadline = Date.now() + 90_000;
    while (!text.includes("llmgw is up") && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
    }
    assertMatch(text, /llmgw is up on http/);
    // A stage's line stays: the progress line is cleared before it.
    assertMatch(
      text,
      new RegExp("\r\u001b\\[2K {2}engine start: loading the model on local \\(CPU\\)\r\n"),
    );
    // The progress line of whichever stage was current at a look (a quick engine may start
    // between two).
    assertMatch(text, new RegExp("\r\u001b\\[2K(placement|engine start) … \\d+ s"));
    // A log line while the progress line is up clears it first, then it is drawn again.
    assertMatch(text, new RegExp('\r\u001b\\[2K\\{"t":'));
    await stdin.write(new Uint8Array([3])); // Ctrl-C, typed on the terminal
    const status = await child.status;
    assertEquals(status.code, 0, text.slice(-2000));
  } finally {
    await stdin.close().catch(() => {});
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
    await child.status;
    await pump;
    await child.stderr.cancel().catch(() => {});
    await Deno.remove(dir, { recursive: true });
  }
});
