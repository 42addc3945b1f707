/**
 * The guardrails' CPU time per request, not wall time: on a shared machine a wall-clock benchmark
 * also counts the time other processes held the core. `deno run -A bench/guard_cpu.ts [N]` runs
 * the input check and the whole answer's output check of bench/guard_fixture.ts N times (default
 * 20 000, after 2 000 to warm up) and prints the process's user+system CPU per request.
 */
import process from "node:process";
import { inspectInput } from "../server/guard/guard.ts";
import { guardWholeAnswer } from "../server/guard/answer_guard.ts";
import { GuardPass } from "../server/guard/guard_pass.ts";
import { answer, body, compiled, deps, key } from "./guard_fixture.ts";

const n = Number(Deno.args[0] ?? 20_000);

async function oneRequest(): Promise<void> {
  const r = await inspectInput(deps, key, body);
  if (r.pass?.blocked) throw new Error("blocked");
  guardWholeAnswer(new GuardPass(compiled), answer);
}

async function cpuMicrosPer(runs: number): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < runs; i++) await oneRequest();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / runs;
}

await cpuMicrosPer(2_000);
const samples: number[] = [];
for (let round = 0; round < 5; round++) samples.push(await cpuMicrosPer(Math.ceil(n / 5)));
samples.sort((a, b) => a - b);
console.log(
  `guard check, input + output of a 2 KB request: ${samples[2]!.toFixed(1)} µs CPU per request ` +
    `(median of 5 rounds; best ${samples[0]!.toFixed(1)}, worst ${samples[4]!.toFixed(1)})`,
);
