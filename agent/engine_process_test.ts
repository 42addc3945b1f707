/**
 * An engine outlives its agent: once the agent that started it exits (a restart; the next one
 * adopts the engine), the engine's output pipes have no reader, and writing to them must not kill
 * it. The engine here prints a line every 50 ms, as a busy llama-server logs each request.
 */
import { assert } from "../tests/assert.ts";
import { isGone } from "./proc_tree.ts";

Deno.test("an engine keeps running after its agent exits and nobody reads its output", async () => {
  const harness = new URL("./testdata/spawn_and_exit.ts", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", harness],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const pid = Number(new TextDecoder().decode(out.stdout).trim());
  assert(pid > 1, "the harness started the engine");
  try {
    // Twenty of its lines later, each a write to a pipe with no reader.
    await new Promise((r) => setTimeout(r, 1_000));
    assert(!isGone(pid), "the engine is still running");
  } finally {
    try {
      Deno.kill(-pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});
