/**
 * For engine_process_test.ts: starts an engine the way the supervisor does (an EngineProcess),
 * prints its pid, and exits without stopping it, as an agent that is restarted does. The engine
 * (`sh`, printing a line every 50 ms) then writes to pipes nobody reads.
 */
import { EngineProcess } from "../engine_process.ts";

const proc = EngineProcess.spawn({
  cmd: "sh",
  args: ["-c", "while :; do echo tick; sleep 0.05; done"],
  env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
  cwd: Deno.cwd(),
  secrets: [],
});
console.log(proc.pid);
await new Promise((r) => setTimeout(r, 300));
Deno.exit(0);
