/**
 * What exporting a span costs: llmgw's own OTLP/HTTP JSON exporter (server/observe/tracing.ts)
 * against Deno's built-in OpenTelemetry (OTEL_DENO=true, spans made through @opentelemetry/api,
 * exported by the runtime). Each runs in a child process that makes N spans with the attributes
 * a request's span carries and exits once a receiver here has them all; its CPU time (user +
 * system, from /proc, every thread) and peak memory are reported per span.
 * `deno run -A bench/otel_exporters.ts [N] [rounds]`; the README's figures come from here.
 */
import { trace } from "@opentelemetry/api";
import { SpanKind } from "@opentelemetry/api";
import { readCpu, readMemory } from "./proc_stats.ts";
import { Tracer } from "../server/observe/tracing.ts";
import { createLogger } from "../core/log.ts";

const mode = Deno.args[0];
const clkTck = 100;

/** The attributes of one chat request's span, as the gateway sets them. */
function attributes(i: number): Record<string, string | number> {
  return {
    "gen_ai.operation.name": "chat",
    "http.request.method": "POST",
    "http.route": "/v1/chat/completions",
    "http.response.status_code": 200,
    "llmgw.request_id": `req-${i}`,
    "gen_ai.request.model": "llama-3-8b",
    "gen_ai.request.max_tokens": 256,
    "gen_ai.request.temperature": 0.7,
    "gen_ai.response.model": "llama-3-8b",
    "gen_ai.usage.input_tokens": 512,
    "gen_ai.usage.output_tokens": 128,
    "gen_ai.usage.cache_read.input_tokens": 0,
    "llmgw.replica": "s-01abc",
    "llmgw.queue_ms": 3,
    "llmgw.ttft_ms": 41,
  };
}

async function handWritten(n: number): Promise<void> {
  const tracer = new Tracer({
    endpoint: Deno.env.get("OTEL_EXPORTER_OTLP_ENDPOINT")!,
    serviceName: "bench",
    samplePercent: 100,
    batchMs: 200,
    maxQueue: n,
    logger: createLogger({ level: "error" }),
  });
  const now = Date.now();
  for (let i = 0; i < n; i++) {
    const a = attributes(i);
    const id = `req-${i}`;
    tracer.requestEnded({
      requestId: id,
      method: "POST",
      route: "/v1/chat/completions",
      status: 200,
      startMs: now - 50,
      endMs: now,
      genAi: { maxTokens: 256, temperature: 0.7 },
    });
    tracer.usage(
      {
        requestId: id,
        at: now,
        keyId: "k",
        model: String(a["gen_ai.request.model"]),
        servedModel: "llama-3-8b",
        endpoint: "/chat/completions",
        promptTokens: 512,
        completionTokens: 128,
        cachedTokens: 0,
        costMicros: 0,
        status: 200,
        latencyMs: 50,
        replicaId: "s-01abc",
        queueMs: 3,
        ttftMs: 41,
      } as Parameters<typeof tracer.usage>[0],
    );
  }
  await tracer.close();
}

function denoBuiltIn(n: number): Promise<void> {
  const tracer = trace.getTracer("bench");
  const now = Date.now();
  for (let i = 0; i < n; i++) {
    const span = tracer.startSpan("chat llama-3-8b", {
      kind: SpanKind.SERVER,
      startTime: now - 50,
      attributes: attributes(i),
    });
    span.end(now);
  }
  return Promise.resolve();
}

/**
 * The receiver's count is read from a file, not over HTTP: with OTEL_DENO on, a fetch would be
 * traced itself and counted.
 */
async function child(kind: string, n: number, countFile: string): Promise<void> {
  const before = await readCpu(Deno.pid, clkTck);
  const t0 = performance.now();
  await (kind === "hand" ? handWritten(n) : denoBuiltIn(n));
  // Deno's exporter runs on its own thread: done when the receiver has every span, or has had
  // no more for 3 s (a bounded queue that dropped some; the count says how many arrived).
  let seen = -1, still = performance.now();
  while (true) {
    const got = Number(await Deno.readTextFile(countFile).catch(() => "0"));
    if (got >= n) break;
    if (got !== seen) [seen, still] = [got, performance.now()];
    else if (got > 0 && performance.now() - still > 3_000) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const exported = Number(await Deno.readTextFile(countFile).catch(() => "0"));
  const after = await readCpu(Deno.pid, clkTck);
  const mem = await readMemory(Deno.pid);
  console.log(JSON.stringify({
    cpuMs: after.ms - before.ms,
    wallMs: performance.now() - t0,
    hwm: mem.hwm,
    exported,
  }));
}

async function parent(n: number, rounds: number): Promise<void> {
  let count = 0;
  const countFile = await Deno.makeTempFile({ prefix: "otel-bench-" });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = JSON.parse(await req.text());
    for (const r of body.resourceSpans ?? []) {
      for (const s of r.scopeSpans ?? []) count += (s.spans ?? []).length;
    }
    await Deno.writeTextFile(countFile, String(count));
    return Response.json({});
  });
  const url = `http://127.0.0.1:${server.addr.port}`;
  const kinds = [
    ["hand", "llmgw's exporter (JSON)", {}],
    ["deno", "Deno built-in (http/json)", {
      OTEL_DENO: "true",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_DENO_CONSOLE: "ignore",
      OTEL_BSP_SCHEDULE_DELAY: "200",
    }],
    ["deno", "Deno built-in, queue 32768", {
      OTEL_DENO: "true",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_DENO_CONSOLE: "ignore",
      OTEL_BSP_SCHEDULE_DELAY: "200",
      OTEL_BSP_MAX_QUEUE_SIZE: "32768",
    }],
  ] as const;
  for (const [kind, label, env] of kinds) {
    const runs = [];
    for (let r = 0; r < rounds; r++) {
      count = 0;
      await Deno.writeTextFile(countFile, "0");
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", new URL(import.meta.url).pathname, kind, String(n), countFile],
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: url, ...env },
        stderr: "inherit",
      }).output();
      if (!out.success) throw new Error(`${kind} failed`);
      runs.push(JSON.parse(new TextDecoder().decode(out.stdout)));
    }
    const cpu = runs.map((x) => x.cpuMs).sort((a, b) => a - b)[Math.floor(rounds / 2)]!;
    const wall = runs.map((x) => x.wallMs).sort((a, b) => a - b)[Math.floor(rounds / 2)]!;
    const hwm = Math.max(...runs.map((x) => x.hwm));
    const exported = Math.min(...runs.map((x) => x.exported));
    const perSpan = (cpu * 1000 / Math.max(1, exported)).toFixed(1);
    console.log(
      `${label.padEnd(28)} ${exported} of ${n} spans exported: CPU ${cpu.toFixed(0)} ms ` +
        `(${perSpan} µs per exported span), wall ${wall.toFixed(0)} ms, ` +
        `peak RSS ${(hwm / 2 ** 20).toFixed(0)} MiB (median of ${rounds})`,
    );
  }
  await server.shutdown();
  await Deno.remove(countFile);
}

if (mode === "hand" || mode === "deno") await child(mode, Number(Deno.args[1]), Deno.args[2]!);
else await parent(Number(Deno.args[0] ?? 20_000), Number(Deno.args[1] ?? 3));
