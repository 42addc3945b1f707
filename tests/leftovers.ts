/**
 * Runs the suite and then looks for what it left running: every process that still carries the
 * suite's mark in its environment (children inherit it; tests/helpers/llmgw_process.ts passes it
 * through its cleared environment). Anything found is named, killed, and fails the run, so a test
 * that leaves an engine, an agent or a server behind is caught the day it is written.
 *
 *   deno run -A tests/leftovers.ts <command> [args…]
 */
export const suiteMark = "LLMGW_TEST_SUITE";

/** The processes (pid and command line) whose environment holds `mark=value`, but not `skip`. */
export function marked(mark: string, value: string, skip: ReadonlySet<number>): string[] {
  const found: string[] = [];
  for (const e of Deno.readDirSync("/proc")) {
    const pid = Number(e.name);
    if (!Number.isInteger(pid) || skip.has(pid)) continue;
    try {
      const env = Deno.readTextFileSync(`/proc/${pid}/environ`).split("\0");
      if (!env.includes(`${mark}=${value}`)) continue;
      if (/^\d+ \(.*\) Z/.test(Deno.readTextFileSync(`/proc/${pid}/stat`))) continue;
      const cmd = Deno.readTextFileSync(`/proc/${pid}/cmdline`).split("\0").join(" ").trim();
      found.push(`${pid} ${cmd.slice(0, 200)}`);
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

/**
 * Waits up to `tries` × 250 ms for the processes marked `mark=value` to go; kills what is left
 * and returns it (empty when all went by themselves).
 */
export async function reap(mark: string, value: string, tries: number): Promise<string[]> {
  let left: string[] = [];
  for (let i = 0; i < tries; i++) {
    left = marked(mark, value, new Set([Deno.pid]));
    if (left.length === 0) return [];
    await new Promise((r) => setTimeout(r, 250));
  }
  for (const p of left) {
    try {
      Deno.kill(Number(p.split(" ")[0]), "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  return left;
}

async function main(argv: string[]): Promise<number> {
  const [cmd, ...args] = argv;
  if (!cmd) {
    console.error("usage: deno run -A tests/leftovers.ts <command> [args…]");
    return 2;
  }
  const value = crypto.randomUUID();
  const run = await new Deno.Command(cmd, { args, env: { [suiteMark]: value } }).spawn().status;
  // Engines stop a moment after their agent; give what is stopping a little time.
  const left = await reap(suiteMark, value, 20);
  if (left.length > 0) {
    console.error(`The suite left ${left.length} process(es) running (now killed):`);
    for (const p of left) console.error(`  ${p}`);
    return run.code || 1;
  }
  return run.code;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
