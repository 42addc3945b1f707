/**
 * vLLM's OpenAI server (`vllm serve`). Its HTTP server only answers once the engine is built, so
 * `/health` 200 means ready.
 */
import {
  type EngineAdapter,
  type LaunchPlan,
  type PlanInput,
  readyByStatusAndBody,
} from "./engine_adapter.ts";
import { checkFlags, type FlagRules, type Refusal } from "./flag_gate.ts";
import { LaunchPlanError } from "./launch_plan_error.ts";
import { vllmDialect } from "./load_snapshot.ts";

const setByAgent: Refusal = { why: "set by the agent" };
const readsFile: Refusal = { why: "reads a file outside the model's weights" };
const loadsCode: Refusal = { why: "loads Python code" };

export const vllmFlagRules: FlagRules = {
  engine: "vllm",
  abbreviations: true,
  refused: {
    "--model": setByAgent,
    "--served-model-name": setByAgent,
    "--trust-remote-code": {
      why: "runs code from the model's repository; allow it explicitly for models that need it",
      allowable: true,
    },
    "--load-format": { why: "changes how weights load, and some ways run code (pickle)" },
    "--download-dir": { why: "writes files outside the engine's directory" },
    "--tokenizer": { why: "reads another repository or path" },
    "--hf-token": { why: "a credential" },
    "--hf-overrides": { why: "rewrites the checkpoint config, which can name code to load" },
    "--chat-template": readsFile,
    "--ssl-keyfile": readsFile,
    "--ssl-certfile": readsFile,
    "--ssl-ca-certs": readsFile,
    "--lora-modules": readsFile,
    "--allowed-local-media-path": { why: "serves local files to requests" },
    "--uds": { why: "listens where the agent does not look" },
    "--enable-log-requests": { why: "logs prompts" },
    "--middleware": loadsCode,
    "--tool-parser-plugin": loadsCode,
  },
};

export const vllmAdapter: EngineAdapter = {
  name: "vllm",
  healthPath: "/health",
  isReady: readyByStatusAndBody,
  metricsPath: "/metrics",
  dialect: vllmDialect,
  plan(input: PlanInput): LaunchPlan {
    if (!input.modelPath) {
      throw new LaunchPlanError("vllm", "a model directory or hub id (modelPath) is needed");
    }
    checkFlags(vllmFlagRules, input.args, input.allowFlags);
    return {
      cmd: input.binary ?? "vllm",
      args: [
        "serve",
        input.modelPath,
        "--host",
        input.host,
        "--port",
        String(input.port),
        "--served-model-name",
        input.model,
        ...input.args,
      ],
      env: { VLLM_API_KEY: input.apiKey },
    };
  },
};
