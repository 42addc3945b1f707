/**
 * Micro-benchmarks of the control plane's own request path (server/wiring/app.ts), in-process:
 *
 *   deno bench -A bench/app_bench.ts
 *
 * Each group compares llmgw's path with the bare minimum beneath it, so the difference is what
 * llmgw adds: Hono routing, the request id, the API key check, body reading, and the relay to a
 * sim engine over loopback. Figures are per call on this machine; compare within a group.
 */
import { Hono } from "hono";
import { ulid } from "ulid";
import { newUlid } from "../core/ulid.ts";
import { sha256Hex, sha256HexSync } from "../server/auth/secrets.ts";
import { startHarness } from "../tests/helpers/harness.ts";

const h = await startHarness({ tokensPerSecond: 1_000_000 });
const bare = new Hono();
bare.get("/v1/models", (c) => c.json({ object: "list", data: [] }));
const auth = { authorization: `Bearer ${h.key}` };
const chat = JSON.stringify({
  model: "demo",
  messages: [{ role: "user", content: "the quick brown fox" }],
  max_tokens: 1,
});

// One listener for the HTTP groups: the app behind Deno.serve, as `llmgw server` runs it.
const served = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, h.app.fetch);
const bareServed = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen: () => {} },
  () =>
    new Response('{"object":"list","data":[]}', {
      headers: { "content-type": "application/json" },
    }),
);
const base = `http://127.0.0.1:${served.addr.port}`;
const bareBase = `http://127.0.0.1:${bareServed.addr.port}`;

Deno.bench("bare Hono: GET /v1/models", { group: "routing", baseline: true }, async () => {
  await (await bare.request("/v1/models")).arrayBuffer();
});
Deno.bench("llmgw app: GET /v1/models (request id, key check)", { group: "routing" }, async () => {
  await (await h.app.request("/v1/models", { headers: auth })).arrayBuffer();
});

Deno.bench(
  "sha256HexSync via node:crypto (what the key check uses)",
  { group: "key hash", baseline: true },
  () => {
    sha256HexSync(h.key);
  },
);
Deno.bench(
  "sha256Hex via crypto.subtle (asynchronous)",
  { group: "key hash" },
  async () => {
    await sha256Hex(h.key);
  },
);
Deno.bench("newUlid() (request id, usage row id)", { group: "key hash" }, () => {
  newUlid();
});

Deno.bench("the ulid package's ulid(), which they used before", { group: "key hash" }, () => {
  ulid();
});

Deno.bench("HTTP: bare Deno.serve handler", { group: "http", baseline: true }, async () => {
  await (await fetch(`${bareBase}/v1/models`)).arrayBuffer();
});
Deno.bench("HTTP: llmgw app GET /v1/models", { group: "http" }, async () => {
  await (await fetch(`${base}/v1/models`, { headers: auth })).arrayBuffer();
});

Deno.bench(
  "HTTP: sim engine direct, 1-token chat",
  { group: "relay", baseline: true },
  async () => {
    const res = await fetch(`${h.engine.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer engine-secret", "content-type": "application/json" },
      body: chat,
    });
    await res.arrayBuffer();
  },
);
Deno.bench("HTTP: through the llmgw app, 1-token chat", { group: "relay" }, async () => {
  const res = await fetch(`${base}/v1/chat/completions`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: chat,
  });
  await res.arrayBuffer();
});

// deno bench has no teardown hook; the listeners close when the process ends.
globalThis.addEventListener("unload", () => {
  void served.shutdown();
  void bareServed.shutdown();
  void h.close();
});
