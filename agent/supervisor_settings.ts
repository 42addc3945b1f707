/**
 * The supervisor's settings, for the agent's settings table (agent.yaml `engines:`). Resolve them
 * with the rest, then pass `parsePortRange(s.enginePorts)` as `portRange` to the Supervisor.
 */
import { text } from "../core/settings.ts";

export const supervisorSettings = {
  enginePorts: text(
    "engines.ports",
    "30000-30999",
    "Ports engines listen on (first-last); each is checked free before use",
  ),
  llamaServer: text(
    "engines.llama_server",
    "",
    "llama-server executable; empty searches PATH",
  ),
  vllm: text("engines.vllm", "", "vllm executable; empty searches PATH"),
};
