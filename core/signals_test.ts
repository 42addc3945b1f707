/**
 * The README's third Ctrl-C: `up`, `server` and the agent take SIGINT/SIGTERM through
 * shutdownSignals(); the first asks for an orderly stop, the second to stop now, and a third ends
 * the process at once, even when its shutdown is stuck. A real child process whose shutdown never
 * finishes gets three real SIGINTs: it says what the first two asked, is still running after
 * them, and the third kills it (by the signal: no exit code of its own) at once.
 */
import { assert, assertEquals } from "../tests/assert.ts";

/** A command that shuts down through shutdownSignals() and, once hurried, hangs. */
const stuckShutdown = `
import { shutdownSignals } from ${JSON.stringify(new URL("./signals.ts", import.meta.url).href)};
const s = shutdownSignals();
s.requested.then((sig) => console.log("requested " + sig));
s.hurried.then((sig) => console.log("hurried " + sig));
console.log("ready");
setInterval(() => {}, 1_000); // a shutdown that never finishes
`;

Deno.test("a third Ctrl-C ends the process at once, however stuck its shutdown", async () => {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-signals-" });
  const script = `${dir}/stuck.ts`;
  await Deno.writeTextFile(script, stuckShutdown);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", script],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  let out = "";
  const reading = (async () => {
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) out += chunk;
  })();
  /** Polls the output (20 ms steps, 20 s cap): a busy machine starts and answers late. */
  const printed = async (line: string) => {
    for (const deadline = Date.now() + 20_000; Date.now() < deadline;) {
      if (out.includes(line)) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`no '${line}' in: ${out}`);
  };
  let ended = false;
  const status = child.status.then((s) => (ended = true, s));
  try {
    await printed("ready");
    child.kill("SIGINT");
    await printed("requested SIGINT");
    child.kill("SIGINT");
    await printed("hurried SIGINT");
    await new Promise((r) => setTimeout(r, 300));
    assert(!ended, "two Ctrl-Cs leave the stop to the program");
    const third = performance.now();
    child.kill("SIGINT");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const s = await Promise.race([
      status,
      new Promise<undefined>((r) => timer = setTimeout(() => r(undefined), 10_000)),
    ]);
    clearTimeout(timer);
    const took = performance.now() - third;
    assert(s, "still running 10 s after the third Ctrl-C");
    assertEquals([s.success, s.signal], [false, "SIGINT"], "ended by the signal itself");
    assert(took < 5_000, `ended ${Math.round(took)} ms after the third`);
  } finally {
    if (!ended) child.kill("SIGKILL");
    await status;
    await reading;
    await Deno.remove(dir, { recursive: true });
  }
});
