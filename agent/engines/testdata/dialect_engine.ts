/**
 * A stand-in for an engine that cannot run here (SGLang, TensorRT-LLM, text-embeddings-inference:
 * GPUs, Python stacks, Rust builds), speaking its dialect over real HTTP so the contract's live
 * part runs against every adapter: the engine's own host and port flags, its key from the
 * environment variable its adapter fills, `/health` 503 while "loading" and then 200, and its
 * metrics page in the engine's documented names, counting the requests it is holding.
 *
 *   deno run -A dialect_engine.ts --fake-dialect sglang --fake-key-env SGLANG_API_KEY ARGS...
 *
 * Started through a wrapper named like the engine's executable (see `fakeEngineBinary`), so the
 * adapter's plan is run as it is, and whatever else its argv holds is ignored.
 */
import { selfCommandEnv } from "../../../core/self_command.ts";

type Dialect = "sglang" | "trtllm" | "tei";

/** Each dialect's page, for `running` requests in flight and `waiting` queued. */
const pages: Record<Dialect, { path: string; render(running: number, done: number): string }> = {
  sglang: {
    path: "/metrics",
    render: (running) =>
      [
        "# TYPE sglang:num_running_reqs gauge",
        `sglang:num_running_reqs{model_name="m",tp_rank="0"} ${running}.0`,
        "# TYPE sglang:num_queue_reqs gauge",
        'sglang:num_queue_reqs{model_name="m",tp_rank="0"} 0.0',
        "# TYPE sglang:token_usage gauge",
        `sglang:token_usage{model_name="m",tp_rank="0"} ${running ? 0.05 : 0}`,
        "",
      ].join("\n"),
  },
  trtllm: {
    path: "/prometheus/metrics",
    render: (running) =>
      [
        "# TYPE trtllm_num_requests_running gauge",
        `trtllm_num_requests_running{engine_type="trtllm",model_name="m"} ${running}.0`,
        "# TYPE trtllm_num_requests_waiting gauge",
        'trtllm_num_requests_waiting{engine_type="trtllm",model_name="m"} 0.0',
        "# TYPE trtllm_kv_cache_utilization gauge",
        `trtllm_kv_cache_utilization{engine_type="trtllm",model_name="m"} ${running ? 0.05 : 0}`,
        "",
      ].join("\n"),
  },
  tei: {
    path: "/metrics",
    // Counters only, as TEI has them; one warm-up request was served before the test's.
    render: (running, done) =>
      [
        "# TYPE te_request_count counter",
        `te_request_count{method="single"} ${running + done + 1}`,
        "# TYPE te_request_success counter",
        `te_request_success{method="single"} ${done + 1}`,
        "# TYPE te_queue_size gauge",
        "te_queue_size 0",
        "",
      ].join("\n"),
  },
};

/** Paths the engine answers without its key. */
const open: Record<Dialect, readonly string[]> = {
  sglang: ["/health"],
  trtllm: ["/health"],
  tei: ["/health", "/metrics"],
};

function flag(args: string[], ...names: string[]): string | undefined {
  for (const n of names) {
    const i = args.indexOf(n);
    if (i >= 0) return args[i + 1];
  }
  return undefined;
}

async function main(args: string[]): Promise<void> {
  const dialect = flag(args, "--fake-dialect") as Dialect;
  const key = Deno.env.get(flag(args, "--fake-key-env") ?? "") ?? "";
  const host = flag(args, "--host", "--hostname") ?? "127.0.0.1";
  const port = Number(flag(args, "--port"));
  if (!pages[dialect] || !key || !port) {
    console.error("dialect_engine: needs --fake-dialect, a key in --fake-key-env, and --port");
    Deno.exit(2);
  }
  const readyAt = Date.now() + 300;
  let running = 0;
  let done = 0;
  const server = Deno.serve({ hostname: host, port, onListen: () => {} }, async (req) => {
    const path = new URL(req.url).pathname;
    if (!open[dialect].includes(path) && req.headers.get("authorization") !== `Bearer ${key}`) {
      return Response.json({ error: { message: "unauthorized" } }, { status: 401 });
    }
    if (path === "/health") return new Response(null, { status: Date.now() < readyAt ? 503 : 200 });
    if (path === pages[dialect].path && req.method === "GET") {
      return new Response(pages[dialect].render(running, done), {
        headers: { "content-type": "text/plain; version=0.0.4" },
      });
    }
    if (req.method !== "POST") return new Response("not found", { status: 404 });
    // Any work: held two seconds, streamed, counted while it runs.
    await req.body?.cancel();
    running++;
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      running--;
      done++;
    };
    const body = new ReadableStream<Uint8Array>({
      async start(c) {
        for (let i = 0; i < 20 && !finished; i++) {
          c.enqueue(new TextEncoder().encode(`data: {"i":${i}}\n\n`));
          await new Promise((r) => setTimeout(r, 100));
        }
        finish();
        c.close();
      },
      cancel: finish,
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  });
  await server.finished;
}

/**
 * An executable named `name` in `dir` that runs this fake for `dialect`: a shell script pointing
 * deno at our module cache, since the supervisor starts engines with a bare environment.
 */
export async function fakeEngineBinary(
  dir: string,
  name: string,
  dialect: Dialect,
  keyEnv: string,
): Promise<string> {
  const exe = `${dir}/${name}`;
  const env = Object.entries(selfCommandEnv()).map(([k, v]) => `export ${k}='${v}'`).join("\n");
  const self = new URL(import.meta.url).pathname;
  await Deno.writeTextFile(
    exe,
    `#!/bin/sh\n${env}\nexec '${Deno.execPath()}' run -A '${self}' --fake-dialect ${dialect} --fake-key-env ${keyEnv} "$@"\n`,
  );
  await Deno.chmod(exe, 0o755);
  return exe;
}

if (import.meta.main) await main(Deno.args);
