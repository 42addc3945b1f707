/** A simulated engine playing a guard model (agent/sim_engine/judge.ts), for tests in server/. */
import { type RunningSimEngine, startSimEngine } from "../../agent/sim_engine/serve.ts";
import type { SimJudgeOptions } from "../../agent/sim_engine/judge.ts";

export type { RunningSimEngine, SimJudgeOptions };

/** Its verdicts and speed as `judge` says; every request but /health needs `apiKey`. */
export function startSimJudge(judge: SimJudgeOptions, apiKey: string): Promise<RunningSimEngine> {
  return startSimEngine({ apiKey, judge });
}
