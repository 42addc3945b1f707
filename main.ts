/**
 * llmgw: the command tree. Each command lives in its own module and is loaded only when used,
 * so `llmgw sim-engine` does not pay for the control plane's imports.
 */
import type { Command } from "./core/command.ts";
import { UsageError } from "./core/command.ts";
import { ConfigError } from "./core/settings.ts";
import { VERSION } from "./core/version.ts";
import { didYouMean } from "./core/suggest.ts";

interface Entry {
  summary: string;
  /** Shown under the command's own `--help`; each is a whole command line. */
  examples: string[];
  load: () => Promise<Command>;
}

const commands: Record<string, Entry> = {
  up: {
    examples: [
      "llmgw up",
      "llmgw up --data /srv/llmgw --listen 0.0.0.0:8080",
      "llmgw up --model ./models/qwen2.5-0.5b-instruct-q4_k_m.gguf",
    ],
    summary: "Run the single-box appliance: init if needed, control plane, local agent, a model",
    load: async () => (await import("./appliance/up.ts")).upCommand,
  },
  init: {
    examples: [
      "llmgw init --data /srv/llmgw",
      "llmgw init --data /srv/llmgw --store-url postgres://llmgw@db:5432/llmgw",
    ],
    summary:
      "Create the data directory, store, cluster secret, first administrator and admin token",
    load: async () => (await import("./server/cli/init.ts")).initCommand,
  },
  server: {
    examples: [
      "llmgw server --data /srv/llmgw",
      "LLMGW_LOG_LEVEL=debug llmgw server --listen 127.0.0.1:8080",
    ],
    summary: "Run the control plane (router, admin API, health)",
    load: async () => (await import("./server/cli/server.ts")).serverCommand,
  },
  ctl: {
    examples: [],
    summary: "Operate a running llmgw through its admin API (keys, models, ...)",
    load: async () => (await import("./server/cli/ctl/mod.ts")).ctlCommand,
  },
  join: {
    examples: [
      "llmgw join JOIN-CODE --data /srv/llmgw-node",
      "llmgw join JOIN-CODE --control https://cp.example.com:8443 --no-run",
    ],
    summary:
      "Join this machine to a cluster with a code from 'ctl nodes join-code', then run its agent",
    load: async () => (await import("./agent/cli/join_command.ts")).joinCommand,
  },
  agent: {
    examples: ["llmgw agent --data /srv/llmgw-node"],
    summary: "Run a node's agent (after 'join'): report the machine, run the engines it is told to",
    load: async () => (await import("./agent/cli/agent_command.ts")).agentCommand,
  },
  doctor: {
    examples: ["llmgw doctor", "llmgw doctor --json"],
    summary: "Show what this node would report (host, GPUs, engines) and what each engine lacks",
    load: async () => (await import("./agent/doctor.ts")).doctorCommand,
  },
  mirror: {
    examples: [
      "llmgw mirror add hf:Qwen/Qwen2.5-0.5B-Instruct-GGUF/qwen2.5-0.5b-instruct-q4_k_m.gguf --wait",
      "llmgw mirror list",
      "llmgw mirror remove VERSION-ID",
    ],
    summary: "Keep model weights on the control plane for nodes without the internet",
    load: async () => (await import("./server/cli/mirror.ts")).mirrorCommand,
  },
  bench: {
    examples: ["llmgw bench --url http://127.0.0.1:8080/v1 --model demo", "llmgw bench overhead"],
    summary: "Load-test an OpenAI-compatible server; `bench overhead` measures the gateway's cost",
    load: async () => (await import("./bench/command.ts")).benchCommand,
  },
  "sim-engine": {
    examples: ["llmgw sim-engine --port 8081"],
    summary: "Run a simulated OpenAI-compatible engine (llama.cpp dialect) for tests and demos",
    load: async () => (await import("./agent/sim_engine/command.ts")).simEngineCommand,
  },
  restore: {
    examples: ["llmgw restore llmgw-2026-12-01.db --data /srv/llmgw"],
    summary: "Restore a backup (from 'ctl backup') into a stopped control plane's data directory",
    load: async () => (await import("./server/cli/restore.ts")).restoreCommand,
  },
  store: {
    examples: ["llmgw store copy --to postgres://llmgw@db:5432/llmgw --data /srv/llmgw"],
    summary: "Copy a single box's store into PostgreSQL ('store copy --to postgres://…')",
    load: async () => (await import("./server/cli/store_command.ts")).storeCommand,
  },
  version: {
    examples: ["llmgw version", "llmgw version --json"],
    summary: "Print the version, commit and build date (--json for a machine)",
    load: () =>
      Promise.resolve({
        name: "version",
        summary: "",
        run: async (argv: string[]) => {
          const { buildInfo, formatBuildInfo } = await import("./core/build_info.ts");
          const b = await buildInfo();
          if (argv.includes("--help") || argv.includes("-h")) {
            console.log("Usage: llmgw version [--json]\n\nThe version, commit and build date.");
            return 0;
          }
          console.log(argv.includes("--json") ? JSON.stringify(b) : formatBuildInfo(b));
          return 0;
        },
      }),
  },
  completion: {
    summary: "Print a shell completion script: source <(llmgw completion bash) (or zsh)",
    examples: [],
    load: async () => {
      const { completionCommand } = await import("./server/cli/completion.ts");
      return completionCommand(async () => ({
        commands: Object.keys(commands),
        nouns: (await import("./server/cli/ctl/mod.ts")).nouns,
        mirror: (await import("./server/cli/mirror.ts")).mirrorVerbs,
      }));
    },
  },
};

function usage(): string {
  const rows = Object.entries(commands).map(([n, c]) => `  ${n.padEnd(12)} ${c.summary}`);
  return `llmgw ${VERSION}: a self-hosted LLM gateway and GPU cluster manager\n\n` +
    `Usage: llmgw <command> [options]   (llmgw <command> --help for its options)\n\n` +
    `Commands:\n${rows.join("\n")}\n`;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    console.log(usage());
    return name ? 0 : 2;
  }
  if (name === "--version") return commands.version!.load().then((c) => c.run([]));
  const entry = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!entry) {
    const hint = didYouMean(name, Object.keys(commands), (c) => `llmgw ${c}`);
    console.error(`llmgw: unknown command '${name}'${hint} (llmgw --help lists them)`);
    return 2;
  }
  try {
    const code = await (await entry.load()).run(rest);
    // ctl and completion print their own; the rest get theirs here, after the command's help.
    if (code === 0 && entry.examples.length && (rest.includes("--help") || rest.includes("-h"))) {
      console.log(`\nExamples:\n${entry.examples.map((e) => `  ${e}`).join("\n")}`);
    }
    return code;
  } catch (e) {
    if (e instanceof UsageError || e instanceof ConfigError) {
      console.error(`llmgw ${name}: ${e.message}`);
      return 2;
    }
    if (e instanceof Error && e.name === "StoreError") {
      console.error(`llmgw ${name}: ${e.message}`);
      return 1;
    }
    throw e;
  }
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
