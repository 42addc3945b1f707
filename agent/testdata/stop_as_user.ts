/**
 * The agent's stop code run on its own, for run_as_stop_test.ts: started by the test as an
 * unprivileged user with exactly the agent unit's capabilities, it starts the tiny engine as
 * another user (engines.run_as) through the supervisor, then stops it, and prints what happened
 * as JSON lines.
 *
 *   deno run -A stop_as_user.ts WORK_DIR RUN_AS
 */
import { silentLogger } from "../../core/log.ts";
import { ownRunAsProblems } from "../run_as_capabilities.ts";
import { Supervisor } from "../supervisor.ts";
import { tinyAdapter, tinySpec } from "./tiny_adapter.ts";

const [workDir = "", runAs = ""] = Deno.args;
const say = (o: Record<string, unknown>) => console.log(JSON.stringify(o));
const sup = new Supervisor({
  logger: silentLogger,
  adapters: { tiny: tinyAdapter() },
  workDir,
  runAs,
  stopGraceMs: 2_000,
});
say({ problems: ownRunAsProblems(runAs) });
const h = await sup.ensure(tinySpec("sk-llmgw-run-as-test", { readyTimeoutMs: 60_000 }));
// Read here, before the stop: the test reading it after this line arrives raced the stop below.
const uid = /^Uid:\s*(\d+)/m.exec(Deno.readTextFileSync(`/proc/${h.pid}/status`))?.[1] ?? "";
say({ started: h.pid, uid });
const began = Date.now();
try {
  await sup.stop(h.replicaId);
  say({ stopped: true, ms: Date.now() - began });
} catch (e) {
  const after = sup.get(h.replicaId);
  say({ error: (e as Error).message, ms: Date.now() - began, state: after?.state ?? "" });
}
Deno.exit(0);
