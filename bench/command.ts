/**
 * `llmgw bench`: load against any OpenAI-compatible server, `llmgw bench overhead`: what the
 * gateway adds over its engine, measured on this machine, and `llmgw bench multiturn`: how much
 * of multi-turn conversations the engines' prompt caches keep.
 */
import { parseArgs } from "node:util";
import { type Command, UsageError } from "../core/command.ts";
import { parseDuration } from "./duration.ts";
import { chatUrl, runLoad, withoutSamples } from "./load.ts";
import { type MultiturnResult, runMultiturn } from "./multiturn.ts";
import { runOverhead, type ScenarioSpec } from "./overhead.ts";
import { checkTargets, formatLoad, formatOverhead } from "./report.ts";

const loadHelp = `Usage: llmgw bench --url URL [options]
       llmgw bench overhead [options]      (llmgw bench overhead --help)
       llmgw bench multiturn --url URL     (llmgw bench multiturn --help)

Sends chat completions to an OpenAI-compatible server from N closed-loop clients (each sends its
next request when its last one ends, over kept-alive connections) and reports requests/s,
tokens/s, time to first token and total latency percentiles from every sample, and errors by
kind (http_<status>, connect, timeout, stream_cut, bad_body). Stops by itself.

Options:
  --url URL             OpenAI base URL, e.g. http://127.0.0.1:8080/v1 (a bare host:port gets /v1)
  --key KEY             Bearer key; better from env LLMGW_BENCH_KEY (argv is visible to others).
                        Never printed.
  --model NAME          Model to ask for (default: the first one the server lists)
  --concurrency N       Clients sending at once (default 1)
  --stream              Stream the answers (time to first token is measured on streams)
  --stream-usage        Ask for the usage chunk on streams (exact token counts; otherwise each
                        content event counts as one token)
  --max-tokens M        max_tokens of each request (default 64)
  --prompt-tokens P     Prompt length, about P tokens (default 32)
  --duration D          How long to send, e.g. 10s, 500ms, 2m (default 10s)
  --requests N          Send N requests in all (with --duration too, whichever ends first)
  --warmup D            Load sent first and not counted (default 0s)
  --timeout D           A request open this long counts as a timeout (default 60s)
  --json                Print the result as JSON
  --help                Show this help
`;

const overheadHelp = `Usage: llmgw bench overhead [options]

Measures what the gateway adds. Starts a sim engine alone (direct) and \`llmgw up\` with its own
sim engine of the same settings (gateway: API key checked, usage recorded), then runs the same
load against each at every concurrency level: first answers that are not streamed from a fast
engine, then streams paced like a real engine. Reports latency direct and through the gateway,
the difference, time to first token, and the gateway process's CPU time per request and
resident memory from /proc (Linux). Everything runs on this machine, load generator included.

Options:
  --mode M                  plain, stream or both (default both)
  --plain-levels LIST       Concurrency levels, not streamed (default 1,8,32)
  --stream-levels LIST      Concurrency levels, streamed (default 1,8,32,128,512)
  --plain-max-tokens N      Tokens per non-streamed answer (default 16)
  --plain-tokens-per-second Engine speed for non-streamed answers (default 100000: near instant)
  --max-tokens N            Tokens per streamed answer (default 64)
  --tokens-per-second N     Engine speed per stream (default 50: one event every 20 ms)
  --prompt-tokens N         Prompt length, about N tokens (default 32)
  --slots N                 Slots of each sim engine, 1..256 (default 256)
  --duration D              Measured time per leg at each level (default 6s)
  --rounds N                Direct and gateway take turns N times within that time, so that a
                            change in the machine's load falls on both alike (default 3)
  --warmup D                Load before each level's first round, not counted (default 1s)
  --timeout D               Per-request timeout (default 60s)
  --guard-policy FILE       A guardrail policy (JSON, as the admin API takes it) that every
                            gateway request goes through, e.g. bench/guard_policy.json
                            (patterns and every PII kind, on input and output)
  --json                    Print the report as JSON
  --help                    Show this help
`;

const multiturnHelp = `Usage: llmgw bench multiturn --url URL [options]

N conversations take turns (turn 1 of each, then turn 2 of each, ...), each request repeating
the conversation so far plus a new user message, streamed. Reports the share of prompt tokens
the engines did not recompute (usage's cached_tokens, else llama.cpp's timings: prompt_tokens
minus prompt_n) and time to first token by turn; then the same run with affinity off (header
x-llmgw-profile: round-robin, which llmgw honours and other servers ignore) for comparison.
Several --url (control planes on one store): request k goes to URL k mod n, as a load balancer
that takes no notice of conversations sends them.

Options:
  --url URL             OpenAI base URL, e.g. http://127.0.0.1:8080/v1; repeat it (or give
                        URL,URL,...) to spread the turns over several
  --key KEY             Bearer key; better from env LLMGW_BENCH_KEY. Never printed.
  --model NAME          Model to ask for (default: the first one the server lists)
  --conversations N     Conversations (default 4)
  --turns T             Turns of each (default 6)
  --opening-words W     Words of each conversation's opening message (default 400)
  --turn-words W        Words of each user message (default 60)
  --max-tokens M        max_tokens of each answer (default 16)
  --no-baseline         Skip the round-robin run
  --timeout D           Per-request timeout (default 60s)
  --json                Print the result as JSON
  --help                Show this help
`;

type Options = Record<
  string,
  { type: "string" | "boolean"; short?: string; multiple?: boolean }
>;

function parse(argv: string[], options: Options, cmd: string) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: false })
      .values as Record<string, string | boolean | string[] | undefined>;
  } catch (e) {
    throw new UsageError(`${(e as Error).message} (see ${cmd} --help)`);
  }
}

function positiveInt(v: unknown, name: string, def: number, max = 1_000_000): number {
  if (v === undefined) return def;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > max) {
    throw new UsageError(`--${name} must be a whole number from 1 to ${max}, got "${v}"`);
  }
  return n;
}

function positiveNumber(v: unknown, name: string, def: number): number {
  if (v === undefined) return def;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--${name} must be above 0, got "${v}"`);
  return n;
}

function duration(v: unknown, name: string, def: number, allowZero = false): number {
  if (v === undefined) return def;
  let n: number;
  try {
    n = parseDuration(String(v));
  } catch (e) {
    throw new UsageError(`--${name}: ${(e as Error).message}`);
  }
  if (n === 0 && !allowZero) throw new UsageError(`--${name} must be longer than 0`);
  return n;
}

function levels(v: unknown, name: string, def: number[]): number[] {
  if (v === undefined) return def;
  const list = String(v).split(",").map((s) => s.trim()).filter(Boolean);
  if (list.length === 0) throw new UsageError(`--${name} needs at least one level`);
  return list.map((s) => positiveInt(s, name, 1, 4096));
}

/** The server's first listed model, for when --model is not given. */
async function firstModel(url: string, key: string | undefined): Promise<string> {
  const modelsUrl = chatUrl(url).replace(/\/chat\/completions$/, "/models");
  let res: Response;
  try {
    res = await fetch(modelsUrl, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  } catch (e) {
    throw new UsageError(`cannot reach ${modelsUrl}: ${(e as Error).message}`);
  }
  const body = await res.json().catch(() => null);
  const id = body?.data?.[0]?.id;
  if (!res.ok || typeof id !== "string") {
    throw new UsageError(`${modelsUrl} answered ${res.status} with no model; give --model`);
  }
  return id;
}

/** The URL as shown: no user or password that someone put in it. */
function shownUrl(url: string): string {
  const u = new URL(url);
  u.username = "";
  u.password = "";
  return u.toString().replace(/\/$/, "");
}

function stopOnCtrlC(): { signal: AbortSignal; dispose: () => void } {
  const ac = new AbortController();
  const handler = () => ac.abort(new DOMException("interrupted", "AbortError"));
  Deno.addSignalListener("SIGINT", handler);
  return { signal: ac.signal, dispose: () => Deno.removeSignalListener("SIGINT", handler) };
}

async function runLoadCommand(argv: string[]): Promise<number> {
  const v = parse(argv, {
    url: { type: "string" },
    key: { type: "string" },
    model: { type: "string" },
    concurrency: { type: "string" },
    stream: { type: "boolean" },
    "stream-usage": { type: "boolean" },
    "max-tokens": { type: "string" },
    "prompt-tokens": { type: "string" },
    duration: { type: "string" },
    requests: { type: "string" },
    warmup: { type: "string" },
    timeout: { type: "string" },
    json: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  }, "llmgw bench");
  if (v.help) {
    console.log(loadHelp);
    return 0;
  }
  if (typeof v.url !== "string") throw new UsageError("--url is required (see llmgw bench --help)");
  try {
    chatUrl(v.url);
  } catch {
    throw new UsageError(`--url is not a URL: "${v.url}"`);
  }
  const key = typeof v.key === "string" ? v.key : Deno.env.get("LLMGW_BENCH_KEY") || undefined;
  const requests = v.requests === undefined ? undefined : positiveInt(v.requests, "requests", 1);
  const durationMs = v.duration === undefined && requests !== undefined
    ? undefined
    : duration(v.duration, "duration", 10_000);
  const options = {
    url: v.url,
    key,
    concurrency: positiveInt(v.concurrency, "concurrency", 1, 100_000),
    stream: v.stream === true,
    streamUsage: v["stream-usage"] === true,
    maxTokens: positiveInt(v["max-tokens"], "max-tokens", 64),
    promptTokens: positiveInt(v["prompt-tokens"], "prompt-tokens", 32),
    timeoutMs: duration(v.timeout, "timeout", 60_000),
  };
  const warmupMs = duration(v.warmup, "warmup", 0, true);
  const model = typeof v.model === "string" ? v.model : await firstModel(v.url, key);
  const load = { ...options, model };
  const stop = stopOnCtrlC();
  try {
    if (warmupMs > 0) await runLoad({ ...load, durationMs: warmupMs, signal: stop.signal });
    const result = await runLoad({ ...load, durationMs, requests, signal: stop.signal });
    const target = { url: shownUrl(v.url), model };
    console.log(
      v.json
        ? JSON.stringify({ target, ...withoutSamples(result) }, null, 2)
        : formatLoad(result, target.url),
    );
  } finally {
    stop.dispose();
  }
  return 0;
}

async function runOverheadCommand(argv: string[]): Promise<number> {
  const v = parse(argv, {
    mode: { type: "string" },
    "plain-levels": { type: "string" },
    "stream-levels": { type: "string" },
    "plain-max-tokens": { type: "string" },
    "plain-tokens-per-second": { type: "string" },
    "max-tokens": { type: "string" },
    "tokens-per-second": { type: "string" },
    "prompt-tokens": { type: "string" },
    slots: { type: "string" },
    duration: { type: "string" },
    warmup: { type: "string" },
    rounds: { type: "string" },
    timeout: { type: "string" },
    "guard-policy": { type: "string" },
    json: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  }, "llmgw bench overhead");
  if (v.help) {
    console.log(overheadHelp);
    return 0;
  }
  if (Deno.build.os !== "linux") {
    console.error(
      "llmgw bench overhead: reads the gateway's CPU and memory from /proc (Linux only)",
    );
    return 1;
  }
  const mode = v.mode ?? "both";
  if (mode !== "both" && mode !== "plain" && mode !== "stream") {
    throw new UsageError(`--mode must be plain, stream or both, got "${mode}"`);
  }
  const scenarios: ScenarioSpec[] = [];
  if (mode !== "stream") {
    scenarios.push({
      name: "plain",
      stream: false,
      levels: levels(v["plain-levels"], "plain-levels", [1, 8, 32]),
      maxTokens: positiveInt(v["plain-max-tokens"], "plain-max-tokens", 16),
      tokensPerSecond: positiveNumber(
        v["plain-tokens-per-second"],
        "plain-tokens-per-second",
        100_000,
      ),
    });
  }
  if (mode !== "plain") {
    scenarios.push({
      name: "stream",
      stream: true,
      levels: levels(v["stream-levels"], "stream-levels", [1, 8, 32, 128, 512]),
      maxTokens: positiveInt(v["max-tokens"], "max-tokens", 64),
      tokensPerSecond: positiveNumber(v["tokens-per-second"], "tokens-per-second", 50),
    });
  }
  const policyFile = v["guard-policy"];
  const guardPolicy = typeof policyFile === "string" ? await readPolicy(policyFile) : undefined;
  const stop = stopOnCtrlC();
  try {
    const report = await runOverhead({
      ...(guardPolicy !== undefined ? { guardPolicy } : {}),
      scenarios,
      durationMs: duration(v.duration, "duration", 6_000),
      warmupMs: duration(v.warmup, "warmup", 1_000, true),
      rounds: positiveInt(v.rounds, "rounds", 3, 100),
      promptTokens: positiveInt(v["prompt-tokens"], "prompt-tokens", 32),
      // The gateway's engines.sim_slots allows at most 256; both engines must match.
      slots: positiveInt(v.slots, "slots", 256, 256),
      timeoutMs: duration(v.timeout, "timeout", 60_000),
      startTimeoutMs: 60_000,
      signal: stop.signal,
      // Progress goes to stderr so that --json output stays one document on stdout.
      progress: (line) => console.error(line),
    });
    console.log(
      v.json
        ? JSON.stringify({ ...report, targets: checkTargets(report) }, null, 2)
        : formatOverhead(report),
    );
  } finally {
    stop.dispose();
  }
  return 0;
}

async function readPolicy(file: string): Promise<unknown> {
  try {
    return JSON.parse(await Deno.readTextFile(file));
  } catch (e) {
    throw new UsageError(`--guard-policy ${file}: ${(e as Error).message}`);
  }
}

async function runMultiturnCommand(argv: string[]): Promise<number> {
  const v = parse(argv, {
    url: { type: "string", multiple: true },
    key: { type: "string" },
    model: { type: "string" },
    conversations: { type: "string" },
    turns: { type: "string" },
    "opening-words": { type: "string" },
    "turn-words": { type: "string" },
    "max-tokens": { type: "string" },
    "no-baseline": { type: "boolean" },
    timeout: { type: "string" },
    json: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  }, "llmgw bench multiturn");
  if (v.help) {
    console.log(multiturnHelp);
    return 0;
  }
  const urls = baseUrls(v.url);
  const key = typeof v.key === "string" ? v.key : Deno.env.get("LLMGW_BENCH_KEY") || undefined;
  const model = typeof v.model === "string" ? v.model : await firstModel(urls[0]!, key);
  const stop = stopOnCtrlC();
  try {
    const base = {
      url: urls.map((u) => chatUrl(u).replace(/\/chat\/completions$/, "")),
      key,
      model,
      conversations: positiveInt(v.conversations, "conversations", 4, 10_000),
      turns: positiveInt(v.turns, "turns", 6, 1_000),
      openingWords: positiveInt(v["opening-words"], "opening-words", 400),
      turnWords: positiveInt(v["turn-words"], "turn-words", 60),
      maxTokens: positiveInt(v["max-tokens"], "max-tokens", 16),
      timeoutMs: duration(v.timeout, "timeout", 60_000),
      signal: stop.signal,
    };
    const runs = [await runMultiturn(base)];
    if (!v["no-baseline"]) runs.push(await runMultiturn({ ...base, profile: "round-robin" }));
    const target = { url: urls.map(shownUrl).join(","), model };
    console.log(
      v.json ? JSON.stringify({ target, runs }, null, 2) : runs.map(formatMultiturn).join("\n"),
    );
  } finally {
    stop.dispose();
  }
  return 0;
}

/** The --url values, each given alone or as URL,URL,...; at least one, each a URL. */
function baseUrls(v: unknown): string[] {
  const urls = (Array.isArray(v) ? v : []).flatMap((u: string) => u.split(",")).map((u) => u.trim())
    .filter(Boolean);
  if (urls.length === 0) {
    throw new UsageError("--url is required (see llmgw bench multiturn --help)");
  }
  for (const u of urls) {
    try {
      chatUrl(u);
    } catch {
      throw new UsageError(`--url is not a URL: "${u}"`);
    }
  }
  return urls;
}

function formatMultiturn(r: MultiturnResult): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
  const ms = (x: number | undefined) => x === undefined ? "-" : `${x.toFixed(0)} ms`;
  return [
    `${r.profile ?? "default routing"}: ${r.conversations} conversations x ${r.turns} turns, ` +
    `${r.requests} requests, ${r.failed} failed`,
    `  cached ${pct(r.cachedShare)} of ${r.promptTokens} prompt tokens ` +
    `(${pct(r.cachedShareAfterFirst)} from turn 2 on)`,
    `  time to first token by turn (p50): ${r.ttftByTurn.map((s) => ms(s?.p50)).join(", ")}`,
  ].join("\n");
}

export const benchCommand: Command = {
  name: "bench",
  summary: "Load-test an OpenAI-compatible server; `bench overhead` measures the gateway's cost",
  run(argv) {
    if (argv[0] === "overhead") return runOverheadCommand(argv.slice(1));
    if (argv[0] === "multiturn") return runMultiturnCommand(argv.slice(1));
    return runLoadCommand(argv);
  },
};
