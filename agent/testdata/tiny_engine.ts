/**
 * A throwaway engine for the supervisor's tests: llama.cpp's health and metrics shapes, and knobs
 * for misbehaving. Deliberately imports nothing, so it starts fast with a cleared environment.
 *
 *   --port N --host H        where to listen
 *   --fail-at-start          print a message (naming its key, to test redaction) and exit 3
 *   --ready-after-ms N       /health answers 503 until N ms after start
 *   --ignore-sigterm         keep running on SIGTERM, as a stuck engine may
 */
const args = Deno.args;
const opt = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const key = Deno.env.get("LLAMA_API_KEY") ?? "";

if (args.includes("--fail-at-start")) {
  console.error(`tiny-engine: cannot load model (key ${key} is fine, the file is not)`);
  Deno.exit(3);
}

if (args.includes("--ignore-sigterm")) Deno.addSignalListener("SIGTERM", () => {});

const readyAt = Date.now() + Number(opt("--ready-after-ms") ?? 0);
const metrics = [
  "# HELP llamacpp:kv_cache_usage_ratio KV-cache usage. 1 = 100 percent usage.",
  "# TYPE llamacpp:kv_cache_usage_ratio gauge",
  "llamacpp:kv_cache_usage_ratio 0.25",
  "llamacpp:requests_processing 2",
  "llamacpp:requests_deferred 1",
  "llamacpp:predicted_tokens_seconds 42.5",
  "llamacpp:prompt_tokens_seconds 1000",
].join("\n") + "\n";

Deno.serve({
  port: Number(opt("--port") ?? 0),
  hostname: opt("--host") ?? "127.0.0.1",
  onListen: (addr) => console.log(`tiny-engine listening on ${addr.hostname}:${addr.port}`),
}, (req) => {
  const path = new URL(req.url).pathname;
  if (path === "/health") {
    return Date.now() < readyAt
      ? Response.json({ error: { code: 503, message: "Loading model" } }, { status: 503 })
      : Response.json({ status: "ok" });
  }
  if (key && req.headers.get("authorization") !== `Bearer ${key}`) {
    return Response.json({ error: { code: 401, message: "Invalid API Key" } }, { status: 401 });
  }
  if (path === "/metrics") return new Response(metrics);
  return new Response("not found", { status: 404 });
});
