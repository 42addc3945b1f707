/** The simulated engine (agent/sim_engine/serve.ts), for tests in server/: they meet agent/ only here. */
export { type RunningSimEngine, startSimEngine } from "../../agent/sim_engine/serve.ts";
