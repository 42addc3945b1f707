/**
 * Structured answers for the simulated engine: tool calls, JSON output and logprobs, all built from
 * the request's seed and schemas, never from the prompt's words, so answers stay deterministic and
 * show that tools, response_format and logprobs reached the engine.
 */
import { hashText, mixSeed, prng } from "./generate.ts";

type Json = Record<string, unknown>;

const WORDS = "alpha bravo delta echo harbor lantern meadow orbit pebble quartz summit velvet"
  .split(" ");

/** A value that fits a JSON schema: enum's first value, a typed sample, required properties only. */
export function sampleValue(schema: unknown, rand: () => number, depth = 0): unknown {
  const s = isRecord(schema) ? schema : {};
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  if ("const" in s) return s.const;
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;
  switch (type) {
    case "string":
      return `${pick(rand)} ${pick(rand)}`;
    case "integer":
      return Math.floor(rand() * 100);
    case "number":
      return Math.round(rand() * 1000) / 10;
    case "boolean":
      return rand() < 0.5;
    case "null":
      return null;
    case "array":
      return depth < 4 && s.items ? [sampleValue(s.items, rand, depth + 1)] : [];
    case "object":
      return sampleObject(s, rand, depth);
  }
  return isRecord(s.properties) ? sampleObject(s, rand, depth) : pick(rand);
}

function sampleObject(s: Json, rand: () => number, depth: number): Json {
  const props = isRecord(s.properties) ? s.properties : {};
  const required = Array.isArray(s.required) ? s.required.filter((k) => typeof k === "string") : [];
  const out: Json = {};
  if (depth >= 4) return out;
  for (const key of required) out[key] = sampleValue(props[key], rand, depth + 1);
  return out;
}

export interface ToolSpec {
  type: string;
  function: { name: string; parameters?: unknown };
}

export interface PlannedCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * The call a model would make when it must call a tool: the one `tool_choice` names, or with
 * "required" the first; nothing when the model may answer in words ("auto", "none", absent).
 */
export function plannedCall(
  tools: ToolSpec[] | null | undefined,
  choice: unknown,
  seed: number,
): PlannedCall | undefined {
  const fns = (tools ?? []).filter((t) => t.type === "function");
  if (fns.length === 0) return undefined;
  let tool: ToolSpec | undefined;
  if (choice === "required") tool = fns[0];
  else if (isRecord(choice) && isRecord(choice.function)) {
    tool = fns.find((t) => t.function.name === (choice.function as Json).name);
  }
  if (!tool) return undefined;
  const args = sampleObject(
    isRecord(tool.function.parameters) ? tool.function.parameters : {},
    prng(mixSeed(seed, 0x7001)),
    0,
  );
  const id = `call_${mixSeed(seed, 0x1d).toString(16).padStart(8, "0")}`;
  return { id, name: tool.function.name, arguments: JSON.stringify(args) };
}

/** The JSON text `response_format` asks for, or undefined when it asks for plain text. */
export function formattedAnswer(format: unknown, seed: number): string | undefined {
  if (!isRecord(format)) return undefined;
  const rand = prng(mixSeed(seed, 0x150));
  if (format.type === "json_object") {
    return JSON.stringify({ answer: `${pick(rand)} ${pick(rand)} ${pick(rand)}` });
  }
  if (format.type === "json_schema" && isRecord(format.json_schema)) {
    return JSON.stringify(sampleValue(format.json_schema.schema ?? { type: "object" }, rand));
  }
  return undefined;
}

const tokenPattern = /\s*[\p{L}\p{N}_]+|\s*[^\s\p{L}\p{N}_]|\s+/gu;

/** Text cut into tokens the way the sim counts them, each keeping its leading space. */
export function toTokens(text: string): string[] {
  return text.match(tokenPattern) ?? [];
}

export interface LogprobEntry {
  token: string;
  logprob: number;
  bytes: number[];
  top_logprobs: { token: string; logprob: number; bytes: number[] }[];
}

const encoder = new TextEncoder();

/** OpenAI's logprobs `content` for a piece of text: a fixed made-up probability per token. */
export function logprobsFor(text: string, top: number): LogprobEntry[] {
  return toTokens(text).map((token) => {
    const h = hashText(token);
    const logprob = -((h % 2000) / 1000);
    const alternatives = Array.from({ length: top }, (_, i) => {
      const t = i === 0 ? token : ` ${WORDS[(h + i) % WORDS.length]}`;
      return { token: t, logprob: i === 0 ? logprob : logprob - i, bytes: [...encoder.encode(t)] };
    });
    return { token, logprob, bytes: [...encoder.encode(token)], top_logprobs: alternatives };
  });
}

function pick(rand: () => number): string {
  return WORDS[Math.floor(rand() * WORDS.length)]!;
}

function isRecord(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
