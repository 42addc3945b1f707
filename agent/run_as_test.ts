/**
 * Engines as their own user: the launch is wrapped in setpriv with every capability dropped.
 * Where this test runs as root with setpriv present, the wrapped command really runs as the
 * other user; elsewhere that test is ignored and its name says why.
 */
import { assertEquals, assertThrows } from "../tests/assert.ts";
import { runAsPlan } from "./run_as.ts";
import { which } from "../core/which.ts";
import { skipNote } from "../tests/helpers/skip.ts";

Deno.test("run_as: setpriv drops to the user and group, then execs the engine", () => {
  const plan = runAsPlan("llmgw-engine", "/usr/bin/llama-server", ["--port", "1"]);
  assertEquals(plan.cmd, "setpriv");
  assertEquals(plan.args, [
    "--reuid=llmgw-engine",
    "--regid=llmgw-engine",
    "--init-groups",
    "--inh-caps=-all",
    "--bounding-set=-all",
    "--",
    "/usr/bin/llama-server",
    "--port",
    "1",
  ]);
  assertEquals(runAsPlan("a:b", "x", []).args.slice(0, 2), ["--reuid=a", "--regid=b"]);
  assertThrows(() => runAsPlan("root; rm -rf /", "x", []), TypeError, "not USER");
  assertThrows(() => runAsPlan("a:b:c", "x", []), TypeError);
});

const setpriv = await which("setpriv");
const liveUnavailable = Deno.uid() !== 0 || !setpriv ? "needs root and setpriv" : undefined;

Deno.test({
  name: "run_as: the wrapped command really runs as the other user" + skipNote(liveUnavailable),
  ignore: !!liveUnavailable,
}, async () => {
  const live = runAsPlan("nobody:nogroup", "id", ["-u"], setpriv);
  const out = await new Deno.Command(live.cmd, { args: live.args, stdout: "piped" }).output();
  const nobody = await new Deno.Command("id", { args: ["-u", "nobody"], stdout: "piped" }).output();
  assertEquals(out.success, true);
  assertEquals(
    new TextDecoder().decode(out.stdout).trim(),
    new TextDecoder().decode(nobody.stdout).trim(),
  );
});
