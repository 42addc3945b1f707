import { assert, assertEquals, assertMatch } from "../../tests/assert.ts";
import { decodeJoinCode, encodeJoinCode } from "./join_code.ts";
import { Liveness } from "./liveness.ts";
import { FakeClock } from "../clock.ts";
import { z } from "zod";
import {
  agentFeatures,
  agentMessageSchema,
  decodeMessage,
  engineLogMaxLines,
  serverMessageSchema,
} from "./messages.ts";

Deno.test("messages: valid frames parse; invalid ones are refused with where they are wrong", () => {
  const ok = decodeMessage(
    agentMessageSchema,
    JSON.stringify({
      type: "heartbeat",
      replicas: [{
        replicaId: "s1",
        model: "m",
        engine: "sim",
        state: "ready",
        baseUrl: "http://127.0.0.1:1",
        pid: 5,
        futureField: 1,
      }],
    }),
  );
  assert(ok.ok);
  assertEquals(ok.message.type, "heartbeat");
  if (ok.message.type === "heartbeat") assertEquals(ok.message.warnings, []);

  const badState = decodeMessage(
    agentMessageSchema,
    JSON.stringify({
      type: "heartbeat",
      replicas: [{
        replicaId: "s1",
        model: "m",
        engine: "sim",
        state: "dancing",
        baseUrl: "",
        pid: 1,
      }],
    }),
  );
  assert(!badState.ok);
  assertMatch(badState.reason, /replicas\.0\.state/);
  assertEquals(decodeMessage(agentMessageSchema, "{not json").ok, false);
  assertEquals(decodeMessage(agentMessageSchema, JSON.stringify({ type: "launch" })).ok, false);
  // A server may not send an agent message, nor the other way round.
  assertEquals(decodeMessage(serverMessageSchema, JSON.stringify({ type: "hello" })).ok, false);
  const start = decodeMessage(
    serverMessageSchema,
    JSON.stringify({
      type: "start_replica",
      id: "c1",
      spec: { replicaId: "../etc", model: "m", engine: "sim", apiKey: "x".repeat(20) },
    }),
  );
  assert(!start.ok, "a replica id that is not a safe directory name is refused");
});

Deno.test("join code: round trip; damaged or foreign text is refused without echoing it", () => {
  const code = {
    urls: ["https://10.0.0.1:8443"],
    secret: "s".repeat(43),
    ca: "ab".repeat(32),
  };
  const text = encodeJoinCode(code);
  assertMatch(text, /^llmgwj1\.[A-Za-z0-9_-]+$/);
  assertEquals(decodeJoinCode(` ${text}\n`), code);
  let msg = "";
  try {
    decodeJoinCode(text.slice(0, -10));
  } catch (e) {
    msg = (e as Error).message;
  }
  assertMatch(msg, /damaged/);
  try {
    decodeJoinCode("sk-llmgw-something");
  } catch (e) {
    msg = (e as Error).message;
  }
  assertMatch(msg, /not a join code/);
  assertEquals(msg.includes("something"), false);
});

Deno.test("liveness: silence brings a ping; an answer keeps it; no answer declares the peer dead", () => {
  const clock = new FakeClock();
  const pings: string[] = [];
  let dead = 0;
  const l = new Liveness({
    idleMs: 100,
    answerMs: 100,
    sendPing: (id) => pings.push(id),
    onDead: () => dead++,
    clock,
  });
  const after = (ms: number) => {
    clock.advance(ms);
    l.check();
  };
  try {
    after(99);
    assertEquals(pings.length, 0, "not yet idle");
    after(1);
    assertEquals(pings, ["1"]);
    after(0);
    assertEquals(pings.length, 1, "one ping per silence");
    l.heard(); // the pong
    after(99);
    assertEquals([pings.length, dead], [1, 0]);
    after(1);
    assertEquals(pings, ["1", "2"], "silent again: a second ping");
    after(99);
    assertEquals(dead, 0, "still within the answer window");
    after(1);
    assertEquals(dead, 1);
    after(1000);
    assertEquals([pings.length, dead], [2, 1], "once dead, nothing more");
  } finally {
    l.stop();
  }
});

Deno.test("messages: the engine log request and its answer; an older hello has no features", () => {
  const ask = decodeMessage(
    serverMessageSchema,
    JSON.stringify({ type: "engine_log", id: "q1", replicaId: "r1", lines: 50, epoch: 3 }),
  );
  assert(ask.ok);
  assertEquals(ask.message.type, "engine_log");
  for (const lines of [0, engineLogMaxLines + 1, 2.5]) {
    const bad = decodeMessage(
      serverMessageSchema,
      JSON.stringify({ type: "engine_log", id: "q1", replicaId: "r1", lines }),
    );
    assert(!bad.ok, `lines ${lines} is refused`);
  }
  const answer = decodeMessage(
    agentMessageSchema,
    JSON.stringify({
      type: "engine_log_lines",
      id: "q1",
      replicaId: "r1",
      found: true,
      lines: ["a", "b"],
      adopted: false,
    }),
  );
  assert(answer.ok);
  if (answer.message.type === "engine_log_lines") assertEquals(answer.message.lines, ["a", "b"]);
  const tooMany = decodeMessage(
    agentMessageSchema,
    JSON.stringify({
      type: "engine_log_lines",
      id: "q1",
      replicaId: "r1",
      found: true,
      lines: Array(engineLogMaxLines + 1).fill("x"),
    }),
  );
  assert(!tooMany.ok, "an answer is bounded as the request is");
  // An agent before the feature says hello without `features`: the control plane never asks it.
  const old = decodeMessage(
    agentMessageSchema,
    JSON.stringify({ type: "hello", protocol: 2, version: "0.1.0" }),
  );
  assert(old.ok);
  if (old.message.type === "hello") assertEquals(old.message.features, undefined);
  const now = decodeMessage(
    agentMessageSchema,
    JSON.stringify({ type: "hello", protocol: 2, version: "x", features: ["engine_log", "later"] }),
  );
  assert(now.ok);
  if (now.message.type === "hello") assert(now.message.features?.includes(agentFeatures.engineLog));
  // What an older agent's decoder makes of the request: not a message it knows, dropped.
  assertEquals(
    decodeMessage(
      olderServerMessages,
      JSON.stringify({ type: "engine_log", id: "q", replicaId: "r", lines: 1 }),
    ).ok,
    false,
  );
});

/** The control plane's messages as a release before `engine_log` knew them. */
const olderServerMessages = z.discriminatedUnion(
  "type",
  serverMessageSchema.options.filter((o) => o.shape.type.value !== "engine_log") as [
    typeof serverMessageSchema.options[number],
    ...typeof serverMessageSchema.options[number][],
  ],
);
