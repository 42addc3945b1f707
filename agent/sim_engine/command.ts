/**
 * `llmgw sim-engine`: a stand-in for llama-server that needs no GPU and no model file, so tests,
 * demos and benchmarks exercise the gateway over real HTTP. The key comes from LLAMA_API_KEY, as
 * with llama-server, so the agent can launch either one the same way.
 */
import { type Command, parseStrict } from "../../core/command.ts";
import { createLogger } from "../../core/log.ts";
import {
  int,
  num,
  oneOf,
  parseArgsOptions,
  resolveSettings,
  settingsHelp,
  text,
} from "../../core/settings.ts";
import { embeddingModes } from "./engine.ts";
import { simQuirkModes } from "./llama_quirks.ts";
import { judgeFormatNames } from "../../core/judge_formats.ts";
import { startSimEngine } from "./serve.ts";

export const simEngineSettings = {
  port: {
    ...int("sim.port", 0, "Port to listen on; 0 picks a free one", { min: 0, max: 65535 }),
    flag: "port",
  },
  host: { ...text("sim.host", "127.0.0.1", "Address to listen on"), flag: "host" },
  tokensPerSecond: {
    ...num("sim.tokens_per_second", 200, "Generation speed of each slot, in tokens per second"),
    flag: "tokens-per-second",
  },
  model: { ...text("sim.model", "demo", "Model name listed by /v1/models"), flag: "model" },
  slots: {
    ...int("sim.slots", 4, "Requests generated at once; more wait in a queue", {
      min: 1,
      max: 1024,
    }),
    flag: "slots",
  },
  embeddingDims: {
    ...int("sim.embedding_dims", 64, "Length of /v1/embeddings vectors", { min: 1, max: 65536 }),
    flag: "embedding-dims",
  },
  judge: {
    ...oneOf(
      "sim.judge",
      ["off", ...judgeFormatNames],
      "off",
      "Play a guard model of this family: every chat request gets a verdict in its words",
    ),
    flag: "judge",
  },
  judgeUnsafe: {
    ...text(
      "sim.judge_unsafe",
      "",
      "Judge mode: comma-separated words that make a verdict unsafe when the last turn holds one",
    ),
    flag: "judge-unsafe",
  },
  judgeDelayMs: {
    ...int("sim.judge_delay_ms", 0, "Judge mode: how long each verdict takes, in ms", {
      min: 0,
      max: 3_600_000,
    }),
    flag: "judge-delay-ms",
  },
  quirks: {
    ...oneOf(
      "sim.quirks",
      simQuirkModes,
      "off",
      "llamacpp: answer a client's mistakes (n > 1, a tool without description, messages not an array, images) with llama-server's 500s",
    ),
    flag: "quirks",
  },
  embeddingMode: {
    ...oneOf(
      "sim.embedding_mode",
      embeddingModes,
      "random",
      "random: noise seeded by each text; lexical: a hashed bag of words, so texts sharing words are near",
    ),
    flag: "embedding-mode",
  },
};

const help = `Usage: llmgw sim-engine [options]

Runs a simulated llama-server: OpenAI-compatible chat, completions and embeddings with
deterministic text at a set speed, plus /health, /metrics, /slots and /v1/models. Chat honours
tools (a forced tool_choice gets a tool call), response_format (JSON), logprobs and
chat_template_kwargs.enable_thinking (reasoning_content first); --reranking adds /v1/rerank.
--judge FAMILY plays a guard model: each chat request gets that family's verdict, unsafe when the
text holds one of --judge-unsafe's words, after --judge-delay-ms.
If LLAMA_API_KEY is set, every request but /health needs "Authorization: Bearer <key>".

Options:
${settingsHelp(simEngineSettings)}
  --reranking, --rerank        Offer /v1/rerank, as llama-server started with --reranking does
  --rpc HOST:PORT,...          Play the head of a set: exit at once unless each worker answers
  --worker                     Play a set's worker (llama.cpp's rpc-server): a TCP port that
                               answers each connection with "sim-worker", nothing over HTTP
  --help                       Show this help
`;

export const simEngineCommand: Command = {
  name: "sim-engine",
  summary: "Run a simulated OpenAI-compatible engine (llama.cpp dialect) for tests and demos",
  async run(argv) {
    const parsed = parseStrict("llmgw sim-engine", argv, {
      ...parseArgsOptions(simEngineSettings),
      // Bare switches, spelled as llama-server's, so a catalog's args suit either engine.
      reranking: { type: "boolean" },
      rerank: { type: "boolean" },
      rpc: { type: "string" },
      worker: { type: "boolean" },
      help: { type: "boolean" },
    });
    if (parsed.values.help) {
      console.log(help);
      return 0;
    }
    const env = Deno.env.toObject();
    const s = resolveSettings(simEngineSettings, { flags: parsed.values, env });
    const log = createLogger({ base: { component: "sim-engine" } });
    if (parsed.values.worker) return await simWorker(s.host, s.port);
    if (typeof parsed.values.rpc === "string") {
      const unreached = await unreachable(parsed.values.rpc.split(",").filter(Boolean));
      if (unreached.length) {
        // As llama-server does when an RPC server is away: the head cannot load without it.
        console.error(`llmgw sim-engine: cannot reach RPC server(s) ${unreached.join(", ")}`);
        return 1;
      }
      log.info("sim-engine reached its workers", { rpc: parsed.values.rpc });
    }
    let engine;
    try {
      engine = await startSimEngine({
        port: s.port,
        hostname: s.host,
        tokensPerSecond: s.tokensPerSecond,
        model: s.model,
        slots: s.slots,
        embeddingDims: s.embeddingDims,
        embeddingMode: s.embeddingMode,
        quirks: s.quirks,
        reranking: parsed.values.reranking === true || parsed.values.rerank === true,
        judge: s.judge === "off" ? undefined : {
          format: s.judge,
          unsafeWhen: s.judgeUnsafe.split(",").map((w) => w.trim()).filter(Boolean),
          delayMs: s.judgeDelayMs,
        },
        apiKey: env.LLAMA_API_KEY,
        logger: log,
      });
    } catch (e) {
      if (!(e instanceof Deno.errors.AddrInUse || e instanceof Deno.errors.PermissionDenied)) {
        throw e;
      }
      console.error(`llmgw sim-engine: cannot listen on ${s.host}:${s.port}: ${e.message}`);
      return 1;
    }
    // The one stdout line: scripts and the agent wait for it to learn the port.
    console.log(`sim-engine listening on ${engine.url}`);
    // A line of its own, as a real engine's load log has, that an engine-log test can look for.
    console.log(`sim-engine serving ${s.model} with ${s.slots} slot(s)`);
    log.info("sim-engine started", { ...s, port: engine.port, auth: Boolean(env.LLAMA_API_KEY) });
    await untilSignalled();
    log.info("sim-engine stopping");
    await engine.close();
    return 0;
  },
};

/** The workers among `addresses` (host:port) that do not answer as a sim worker does. */
async function unreachable(addresses: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const a of addresses) {
    const at = a.lastIndexOf(":");
    try {
      const c = await Deno.connect({ hostname: a.slice(0, at), port: Number(a.slice(at + 1)) });
      const buf = new Uint8Array(16);
      const n = await c.read(buf);
      c.close();
      if (new TextDecoder().decode(buf.subarray(0, n ?? 0)) !== "sim-worker\n") out.push(a);
    } catch {
      out.push(a);
    }
  }
  return out;
}

/** A set's worker: greets each connection, as a head's check reads it, until signalled. */
async function simWorker(host: string, port: number): Promise<number> {
  const listener = Deno.listen({ hostname: host, port });
  console.log(`sim-engine worker listening on ${host}:${listener.addr.port}`);
  (async () => {
    for await (const c of listener) {
      c.write(new TextEncoder().encode("sim-worker\n")).catch(() => {}).finally(() => c.close());
    }
  })().catch(() => {});
  await untilSignalled();
  listener.close();
  return 0;
}

function untilSignalled(): Promise<Deno.Signal> {
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  return new Promise((resolve) => {
    const handlers = signals.map((sig) => {
      const h = () => {
        handlers.forEach(([s, f]) => Deno.removeSignalListener(s, f));
        resolve(sig);
      };
      Deno.addSignalListener(sig, h);
      return [sig, h] as const;
    });
  });
}
