/** Request bodies: parsing and validation, with failures as OpenAI-shaped 400 responses. */
import type { Context } from "hono";
import { z } from "zod";
import { errorBody } from "./openai_shapes.ts";

const part = z.object({ type: z.string(), text: z.string().optional() });
const message = z.object({
  role: z.string(),
  content: z.union([z.string(), z.array(part), z.null()]).optional(),
});
/** OpenAI accepts text, a list of texts, token ids, or lists of token ids for prompt and input. */
const textOrTokens = z.union([
  z.string(),
  z.array(z.string()).min(1),
  z.array(z.number().int()).min(1),
  z.array(z.array(z.number().int()).min(1)).min(1),
]);

const sampling = {
  model: z.string().optional(),
  max_tokens: z.number().int().min(1).nullish(),
  n: z.number().int().min(1).max(16).nullish(),
  stop: z.union([z.string(), z.array(z.string()).max(16)]).nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().nullish() }).nullish(),
  seed: z.number().int().nullish(),
};

const tool = z.object({
  type: z.string(),
  function: z.object({ name: z.string(), parameters: z.unknown().optional() }),
});

export const chatRequest = z.object({
  ...sampling,
  // llama-server reads a mistyped `stream` as its default rather than refusing the request.
  stream: z.unknown().optional().transform((v) => v === true),
  messages: z.array(message).min(1),
  max_completion_tokens: z.number().int().min(1).nullish(),
  tools: z.array(tool).nullish(),
  tool_choice: z.unknown().optional(),
  response_format: z.unknown().optional(),
  logprobs: z.boolean().nullish(),
  top_logprobs: z.number().int().min(0).max(20).nullish(),
  /** llama.cpp and vLLM pass these to the chat template; `enable_thinking` turns reasoning on. */
  chat_template_kwargs: z.record(z.string(), z.unknown()).nullish(),
  /** llama-server's slot to run in; -1 or absent lets the engine choose. */
  id_slot: z.number().int().nullish(),
});
export type ChatRequest = z.infer<typeof chatRequest>;

export const completionRequest = z.object({ ...sampling, prompt: textOrTokens });
export type CompletionRequest = z.infer<typeof completionRequest>;

export const embeddingRequest = z.object({
  model: z.string().optional(),
  input: textOrTokens,
  encoding_format: z.enum(["float", "base64"]).nullish(),
  /** As vLLM serves a Matryoshka model: the first n dimensions, renormalised. */
  dimensions: z.number().int().min(1).nullish(),
});
export type EmbeddingRequest = z.infer<typeof embeddingRequest>;

export type Parsed<T> = { ok: true; data: T } | { ok: false; response: Response };

/** Reads the JSON body and checks it; wrong input gets the message OpenAI would give. */
export async function parseBody<T>(c: Context, schema: z.ZodType<T>): Promise<Parsed<T>> {
  let body: unknown;
  try {
    body = JSON.parse(await c.req.text());
  } catch {
    return bad(c, "We could not parse the JSON body of your request.", null);
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return bad(c, "The request body must be a JSON object.", null);
  }
  const parsed = schema.safeParse(body);
  if (parsed.success) return { ok: true, data: parsed.data };
  const issue = parsed.error.issues[0]!;
  const param = issue.path.map(String).join(".") || null;
  const top = issue.path[0];
  if (typeof top === "string" && issue.path.length === 1 && !(top in body)) {
    return bad(c, `Missing required parameter: '${top}'.`, top);
  }
  return bad(c, `Invalid '${param}': ${issue.message}`, param);
}

function bad<T>(c: Context, message: string, param: string | null): Parsed<T> {
  return { ok: false, response: c.json(errorBody(message, { param }), 400) };
}
