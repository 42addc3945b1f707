/**
 * The bench commands as a person runs them: `llmgw bench` against a sim engine, and a short
 * `llmgw bench overhead` that starts its own engines and gateway. Only completion without errors
 * is asserted of the overhead run; its figures depend on the machine.
 */
import { assert, assertEquals, assertMatch } from "../tests/assert.ts";
import { selfCommand, selfCommandEnv } from "../core/self_command.ts";
import { startSimEngine } from "../agent/sim_engine/serve.ts";

async function llmgw(args: string[], env: Record<string, string> = {}) {
  const { cmd, args: full } = selfCommand(args);
  const out = await new Deno.Command(cmd, {
    args: full,
    env: { ...selfCommandEnv(), ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test("bench --help lists its options; a wrong option is a usage error", async () => {
  const help = await llmgw(["bench", "--help"]);
  assertEquals(help.code, 0);
  for (const flag of ["--url", "--key", "--model", "--concurrency", "--stream", "--max-tokens"]) {
    assert(help.stdout.includes(flag), `help lacks ${flag}`);
  }
  for (const flag of ["--duration", "--requests", "--prompt-tokens", "--json", "overhead"]) {
    assert(help.stdout.includes(flag), `help lacks ${flag}`);
  }
  const overheadHelp = await llmgw(["bench", "overhead", "--help"]);
  assertEquals(overheadHelp.code, 0);
  assertMatch(overheadHelp.stdout, /--stream-levels/);
  const wrong = await llmgw(["bench", "--url", "http://127.0.0.1:1/v1", "--concurrency", "0"]);
  assertEquals(wrong.code, 2);
  assertMatch(wrong.stderr, /--concurrency must be a whole number/);
  const noUrl = await llmgw(["bench"]);
  assertEquals(noUrl.code, 2);
  assertMatch(noUrl.stderr, /--url is required/);
});

Deno.test("bench reports a run against a server, takes the key from the environment and never prints it", async () => {
  const key = "sk-bench-secret-0123456789";
  const engine = await startSimEngine({ tokensPerSecond: 5_000, slots: 4, apiKey: key });
  try {
    const text = await llmgw(
      ["bench", "--url", engine.url, "--concurrency", "2", "--requests", "10", "--stream"],
      { LLMGW_BENCH_KEY: key },
    );
    assertEquals(text.code, 0, text.stderr);
    assertMatch(text.stdout, /10 ok, 0 failed/);
    assertMatch(text.stdout, /time to first token/);
    const json = await llmgw(
      ["bench", "--url", `${engine.url}/v1`, "--requests", "5", "--model", "demo", "--json"],
      { LLMGW_BENCH_KEY: key },
    );
    assertEquals(json.code, 0, json.stderr);
    const r = JSON.parse(json.stdout);
    assertEquals([r.ok, r.requests, r.errors, r.target.model], [5, 5, {}, "demo"]);
    for (const out of [text.stdout, text.stderr, json.stdout, json.stderr]) {
      assert(!out.includes(key), "the key was printed");
    }
  } finally {
    await engine.close();
  }
});

Deno.test("bench multiturn spreads the turns over every --url given, request k to URL k mod n", async () => {
  const engine = await startSimEngine({ tokensPerSecond: 5_000, slots: 4 });
  // Two front doors to one engine, each counting what it was sent.
  const hits = [0, 0, 0];
  const doors = hits.map((_, i) =>
    Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
      hits[i]!++;
      const url = new URL(req.url);
      return await fetch(`${engine.url}${url.pathname}`, {
        method: req.method,
        headers: req.headers,
        body: req.body,
      });
    })
  );
  try {
    const [a, b, c] = doors.map((d) => `http://127.0.0.1:${d.addr.port}/v1`);
    const out = await llmgw([
      ...["bench", "multiturn", "--url", a!, "--url", `${b},${c}`, "--model", "demo"],
      ...["--conversations", "2", "--turns", "3", "--opening-words", "20", "--no-baseline"],
      "--json",
    ]);
    assertEquals(out.code, 0, out.stderr);
    const r = JSON.parse(out.stdout);
    assertEquals(r.runs[0].requests, 6);
    assertEquals(r.runs[0].failed, 0);
    assertEquals(hits, [2, 2, 2]);
  } finally {
    for (const d of doors) await d.shutdown();
    await engine.close();
  }
});

Deno.test("bench overhead completes a short run, direct and through a gateway, without errors", async () => {
  const run = await llmgw([
    "bench",
    "overhead",
    "--plain-levels",
    "1",
    "--stream-levels",
    "4",
    "--max-tokens",
    "8",
    "--tokens-per-second",
    "1000",
    "--slots",
    "8",
    "--duration",
    "300ms",
    "--warmup",
    "100ms",
    "--rounds",
    "2",
    "--json",
  ]);
  assertEquals(run.code, 0, run.stderr);
  const report = JSON.parse(run.stdout);
  assertEquals(report.gatewayPidIsGateway, true);
  assertEquals(report.scenarios.map((s: { name: string }) => s.name), ["plain", "stream"]);
  for (const s of report.scenarios) {
    for (const l of s.levels) {
      for (const leg of [l.direct, l.gateway]) {
        assertEquals(leg.errors, {}, `${s.name} c=${l.concurrency}`);
        assert(leg.ok > 0, `${s.name} c=${l.concurrency}: no request answered`);
      }
      assert(l.gatewayCpuMsPerRequest > 0 && l.gatewayRssPeakMb > 0);
    }
  }
  assert(!/sk-llmgw-/.test(run.stdout + run.stderr), "the gateway's key was printed");
});
