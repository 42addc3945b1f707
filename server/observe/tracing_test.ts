/**
 * Traces over OTLP/HTTP JSON to a real receiver: one span per inference request with the GenAI
 * attributes, parented under the client's traceparent; a sampling field of the wrong type is left
 * out and the request still answers; no prompt or answer text in anything exported.
 */
import { assert, assertEquals, assertThrows } from "../../tests/assert.ts";
import { createLogger } from "../../core/log.ts";
import { ConfigError } from "../../core/settings.ts";
import { parseOtelPairs, withOtelAliases } from "./otel_env.ts";
import { startTestControlPlane } from "../../tests/helpers/control_plane.ts";
import { until } from "../../tests/helpers/channel_node.ts";
import { parseTraceparent } from "./tracing.ts";

interface Attr {
  key: string;
  value: Record<string, unknown>;
}
interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Attr[];
}

Deno.test("tracing: GenAI spans to a real OTLP/HTTP receiver, never text, lenient fields", async () => {
  const bodies: string[] = [];
  const receiver = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (req) => {
      if (new URL(req.url).pathname !== "/v1/traces") return new Response("no", { status: 404 });
      bodies.push(await req.text());
      return new Response("{}", { headers: { "content-type": "application/json" } });
    },
  );
  const t = await startTestControlPlane({
    flags: { "otel-endpoint": `http://127.0.0.1:${receiver.addr.port}`, "otel-batch-ms": "50" },
  });
  try {
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const parent = "00f067aa0ba902b7";
    const ok = await t.chat({
      model: "demo",
      max_tokens: 7,
      temperature: 0.5,
      top_p: 0.9,
      messages: [{ role: "user", content: "a confidential question about the merger" }],
    }, { traceparent: `00-${traceId}-${parent}-01` });
    assertEquals(ok.status, 200);
    const answer = (await ok.json()).choices[0].message.content as string;
    const odd = await t.chat({
      model: "demo",
      temperature: "hot",
      top_p: null,
      stream: true,
      messages: [{ role: "user", content: "hi" }],
    });
    assertEquals(odd.status, 200, "a field read only for the trace never refuses a request");
    await odd.text();
    const unsampled = await t.chat(
      { model: "demo", messages: [{ role: "user", content: "x" }] },
      { traceparent: `00-${traceId}-${parent}-00` },
    );
    await unsampled.body?.cancel();

    const spans = (): Span[] =>
      bodies.flatMap((b) =>
        JSON.parse(b).resourceSpans.flatMap((r: { scopeSpans: { spans: Span[] }[] }) =>
          r.scopeSpans.flatMap((s) => s.spans)
        )
      );
    await until(() => spans().length >= 2);
    await new Promise((r) => setTimeout(r, 200));
    assertEquals(spans().length, 2, "the client's unsampled trace is not exported");
    const attrs = (s: Span) =>
      Object.fromEntries(s.attributes.map((a) => [a.key, Object.values(a.value)[0]]));
    const first = spans().find((s) => s.traceId === traceId)!;
    assertEquals(first.parentSpanId, parent);
    assertEquals(first.name, "chat demo");
    const a = attrs(first);
    assertEquals(a["gen_ai.operation.name"], "chat");
    assertEquals(a["gen_ai.request.model"], "demo");
    assertEquals(a["gen_ai.response.model"], "demo");
    assertEquals(a["gen_ai.request.max_tokens"], "7");
    assertEquals(a["gen_ai.request.temperature"], 0.5);
    assertEquals(a["gen_ai.request.top_p"], 0.9);
    assert(Number(a["gen_ai.usage.input_tokens"]) > 0);
    assertEquals(a["gen_ai.usage.output_tokens"], "7");
    assert("gen_ai.usage.cache_read.input_tokens" in a);
    assertEquals(a["http.response.status_code"], "200");
    const second = spans().find((s) => s.traceId !== traceId)!;
    assert(!("gen_ai.request.temperature" in attrs(second)), "a wrong type is left out");
    assertEquals(second.parentSpanId, undefined);
    const all = bodies.join("\n");
    assert(!all.includes("merger") && !all.includes("confidential"), "no prompt text");
    if (answer.length > 8) assert(!all.includes(answer), "no answer text");
    assert(!all.includes(t.key), "no key");
  } finally {
    await t.close();
    await receiver.shutdown();
  }
});

Deno.test("tracing: the standard OTEL_* variables set the endpoint, headers and resource", async () => {
  const seen: { headers: Headers; body: string }[] = [];
  const receiver = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (req) => {
      if (new URL(req.url).pathname !== "/v1/traces") return new Response("no", { status: 404 });
      seen.push({ headers: req.headers, body: await req.text() });
      return new Response("{}", { headers: { "content-type": "application/json" } });
    },
  );
  const apiKey = "hc-secret-7f3a9";
  const lines: string[] = [];
  const t = await startTestControlPlane({
    flags: { "otel-batch-ms": "50" },
    logger: createLogger({ sink: (l) => lines.push(l), level: "debug" }),
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.addr.port}`,
      // Percent-encoded as the spec writes values: "Basic a b" with its space.
      OTEL_EXPORTER_OTLP_HEADERS: `x-honeycomb-team=${apiKey}, authorization=Basic%20a%20b`,
      OTEL_SERVICE_NAME: "gateway-eu",
      OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=staging,service.name=ignored",
    },
  });
  try {
    const ok = await t.chat({ model: "demo", messages: [{ role: "user", content: "hi" }] });
    assertEquals(ok.status, 200);
    await ok.body?.cancel();
    await until(() => seen.length >= 1);
    const [first] = seen;
    assertEquals(first!.headers.get("x-honeycomb-team"), apiKey);
    assertEquals(first!.headers.get("authorization"), "Basic a b");
    assertEquals(first!.headers.get("content-type"), "application/json");
    const resource = JSON.parse(first!.body).resourceSpans[0].resource.attributes as Attr[];
    const r = Object.fromEntries(resource.map((a) => [a.key, Object.values(a.value)[0]]));
    assertEquals(r["service.name"], "gateway-eu", "OTEL_SERVICE_NAME over the attributes'");
    assertEquals(r["deployment.environment"], "staging");
    assert(!lines.join("\n").includes(apiKey), "the header's value is in no log line");
  } finally {
    await t.close();
    await receiver.shutdown();
  }
});

Deno.test("OTEL pairs: percent-decoded values, a pair without '=' refused by name only", () => {
  assertEquals(parseOtelPairs(" a=1 , b=x%3Dy ,", "otel.headers"), { a: "1", b: "x=y" });
  assertThrows(() => parseOtelPairs("api-key", "otel.headers"), ConfigError, "key=value");
  assertEquals(
    withOtelAliases({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }).LLMGW_OTEL_ENDPOINT,
    "http://c:4318",
  );
  assertEquals(
    withOtelAliases({
      LLMGW_OTEL_ENDPOINT: "http://mine:4318",
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://theirs:4318",
    }).LLMGW_OTEL_ENDPOINT,
    "http://mine:4318",
    "llmgw's own name wins",
  );
});

Deno.test("traceparent: only well-formed, non-zero ids are followed", () => {
  assertEquals(parseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"), {
    traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
    spanId: "00f067aa0ba902b7",
    sampled: true,
  });
  assertEquals(
    parseTraceparent("00-00000000000000000000000000000000-00f067aa0ba902b7-01"),
    undefined,
  );
  assertEquals(parseTraceparent("garbage"), undefined);
  assertEquals(parseTraceparent(undefined), undefined);
});
