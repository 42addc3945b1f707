/**
 * What a Deno proxy costs at the least, beside what the gateway costs, under the same load:
 *
 *   deno run -A bench/floor.ts [concurrency=128] [seconds=5] [tokens/s=50] [max_tokens=64] [legs]
 *     [stream|plain]
 *
 * legs: a comma list of direct, pipe, js, byob, raw, gateway (default: all of them). `plain` sends
 * requests that are not streamed (then use a fast engine, e.g. 100000 tokens/s).
 *
 * One sim engine serves every leg. Each proxy (bench/floor_proxy.ts in each of its modes, then
 * `llmgw up` with its own sim engine of the same settings) gets the same streamed load, and its
 * CPU time per request is read from /proc as `bench overhead` does. A yardstick for where the
 * gateway's time goes: the runtime's share (pipe, js) and the gateway's own (the rest).
 */
import { selfCommand } from "../core/self_command.ts";
import { randomToken } from "../server/auth/secrets.ts";
import { type Child, startChild, startProcess } from "./child.ts";
import { errorCount, type LoadOptions, runLoad } from "./load.ts";
import { clockTicks, readCpu, RssSampler } from "./proc_stats.ts";
import { table } from "./report.ts";
import { raiseLimits } from "./overhead.ts";

const [concurrency = 128, seconds = 5, tps = 50, maxTokens = 64] = Deno.args.slice(0, 4).map(
  Number,
);
const legs = new Set((Deno.args[4] ?? "direct,pipe,js,byob,raw,gateway").split(","));
const stream = Deno.args[5] !== "plain";
const hz = await clockTicks();
const engineKey = randomToken("llmgw_bench_");
const slots = "256";
const children: Child[] = [];
const rows: string[][] = [];
try {
  const engine = await startChild(
    ["sim-engine", "--tokens-per-second", String(tps), "--slots", slots],
    { readyWhen: /listening on (\S+)/, timeoutMs: 60_000, env: { LLAMA_API_KEY: engineKey } },
  );
  children.push(engine);
  const base: Omit<LoadOptions, "url" | "durationMs"> = {
    key: engineKey,
    model: "demo",
    concurrency: concurrency!,
    stream,
    maxTokens: maxTokens!,
    promptTokens: 32,
    timeoutMs: 60_000,
    streamUsage: false,
  };
  const measure = async (name: string, url: string, pid: number | null, key = engineKey) => {
    await runLoad({ ...base, key, url, durationMs: 1_000 });
    const before = pid ? (await readCpu(pid, hz)).ms : 0;
    const rss = pid ? new RssSampler(pid) : null;
    const r = await runLoad({ ...base, key, url, durationMs: seconds! * 1000 });
    const cpu = pid ? (await readCpu(pid, hz)).ms - before : NaN;
    const peak = (await rss?.stop()) ?? 0;
    rows.push([
      name,
      String(r.ok),
      String(errorCount(r)),
      r.requestsPerSecond.toFixed(0),
      r.latencyMs?.p50.toFixed(2) ?? "-",
      r.latencyMs?.p99.toFixed(2) ?? "-",
      r.ttftMs?.p50.toFixed(1) ?? "-",
      pid ? (cpu / r.ok).toFixed(3) : "-",
      pid ? (peak / 2 ** 20).toFixed(0) : "-",
    ]);
    console.error(rows.at(-1)!.join("  "));
    if (errorCount(r)) console.error(r.errorSamples);
  };
  if (legs.has("direct")) await measure("direct (no proxy)", `${engine.match[1]}/v1`, null);
  for (const mode of ["pipe", "js", "byob", "raw"].filter((m) => legs.has(m))) {
    const { cmd, args } = selfCommand([]);
    const script = decodeURIComponent(new URL("./floor_proxy.ts", import.meta.url).pathname);
    const proxy = await startProcess(
      { cmd, args: [...args.slice(0, -1), script, engine.match[1]!, mode] },
      `floor proxy ${mode}`,
      { readyWhen: /on (\S+)/, timeoutMs: 60_000 },
    );
    children.push(proxy);
    await measure(`floor proxy: ${mode}`, `${proxy.match[1]}/v1`, proxy.pid);
    await proxy.stop();
  }
  const dataDir = await Deno.makeTempDir({ prefix: "llmgw-floor-" });
  if (legs.has("gateway")) {
    const gw = await startChild([
      "up",
      "--data",
      dataDir,
      "--listen",
      "127.0.0.1:0",
      "--engines-sim-tokens-per-second",
      String(tps),
      "--engines-sim-slots",
      slots,
      // All the load comes from one address: past 256 connections the cap would refuse it.
      "--listener-max-connections-per-address",
      "0",
      "--log-level",
      "warn",
    ], { readyWhen: /llmgw is up on (\S+)[\s\S]*?API key: (sk-llmgw-\S+)/, timeoutMs: 60_000 });
    children.push(gw);
    await raiseLimits(gw.match[1]!, dataDir);
    await measure("llmgw up (gateway)", `${gw.match[1]}/v1`, gw.pid, gw.match[2]!);
    await gw.stop();
  }
  await Deno.remove(dataDir, { recursive: true }).catch(() => {});
} finally {
  for (const c of children.reverse()) await c.stop();
}
console.log(
  `${concurrency} concurrent ${stream ? "streams" : "requests (not streamed)"} of ${maxTokens} ` +
    `tokens at ${tps} tokens/s, ${seconds} s per leg, ` +
    `load average ${Deno.loadavg().map((x) => x.toFixed(2)).join(" ")}\n`,
);
console.log(
  table(
    ["leg", "ok", "failed", "req/s", "p50 ms", "p99 ms", "TTFT p50", "proxy CPU ms/req", "RSS MB"],
    rows,
  ),
);
