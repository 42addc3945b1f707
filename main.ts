/**
 * llmgw: the command tree. Each command lives in its own module and is loaded only when used,
 * so `llmgw sim-engine` does not pay for the control plane's imports.
 */
import type { Command } from "./core/command.ts";
import { UsageError } from "./core/command.ts";
import { ConfigError } from "./core/settings.ts";
import { VERSION } from "./core/version.ts";

const commands: Record<string, { summary: string; load: () => Promise<Command> }> = {
  up: {
    summary: "Run the single-box appliance: init if needed, control plane, local agent, a model",
    load: async () => (await import("./appliance/up.ts")).upCommand,
  },
  init: {
    summary:
      "Create the data directory, store, cluster secret, first administrator and admin token",
    load: async () => (await import("./server/cli/init.ts")).initCommand,
  },
  server: {
    summary: "Run the control plane (router, admin API, health)",
    load: async () => (await import("./server/cli/server.ts")).serverCommand,
  },
  ctl: {
    summary: "Operate a running llmgw through its admin API (keys, models, ...)",
    load: async () => (await import("./server/cli/ctl/mod.ts")).ctlCommand,
  },
  join: {
    summary:
      "Join this machine to a cluster with a code from 'ctl nodes join-code', then run its agent",
    load: async () => (await import("./agent/cli/join_command.ts")).joinCommand,
  },
  agent: {
    summary: "Run a node's agent (after 'join'): report the machine, run the engines it is told to",
    load: async () => (await import("./agent/cli/agent_command.ts")).agentCommand,
  },
  doctor: {
    summary: "Show what this node would report (host, GPUs, engines) and what each engine lacks",
    load: async () => (await import("./agent/doctor.ts")).doctorCommand,
  },
  mirror: {
    summary: "Keep model weights on the control plane for nodes without the internet",
    load: async () => (await import("./server/cli/mirror.ts")).mirrorCommand,
  },
  bench: {
    summary: "Load-test an OpenAI-compatible server; `bench overhead` measures the gateway's cost",
    load: async () => (await import("./bench/command.ts")).benchCommand,
  },
  "sim-engine": {
    summary: "Run a simulated OpenAI-compatible engine (llama.cpp dialect) for tests and demos",
    load: async () => (await import("./agent/sim_engine/command.ts")).simEngineCommand,
  },
  restore: {
    summary: "Restore a backup (from 'ctl backup') into a stopped control plane's data directory",
    load: async () => (await import("./server/cli/restore.ts")).restoreCommand,
  },
  version: {
    summary: "Print the version, commit and build date (--json for a machine)",
    load: () =>
      Promise.resolve({
        name: "version",
        summary: "",
        run: async (argv: string[]) => {
          const { buildInfo, formatBuildInfo } = await import("./core/build_info.ts");
          const b = await buildInfo();
          console.log(argv.includes("--json") ? JSON.stringify(b) : formatBuildInfo(b));
          return 0;
        },
      }),
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
  const entry = commands[name];
  if (!entry) {
    console.error(`Unknown command: ${name}\n\n${usage()}`);
    return 2;
  }
  try {
    return await (await entry.load()).run(rest);
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
