/**
 * What each engine refuses, and what it needs, that a client cannot be expected to know. Met
 * before the engine: a client's own mistake is a 400 naming its field instead of the engine's
 * 500, which would read as the endpoint failing and cost every other client the model. The
 * engine's refusal texts are kept too, so a 5xx that slips past the rules (a newer client
 * field, an older engine build) is still seen as the request's fault.
 */
import type { EngineName } from "../../core/engines/engine_traits.ts";
import { isRecord } from "./json_fields.ts";

/** What a rule knows of the model beyond the body. */
export interface QuirkModel {
  /** It reads images (a `vision` capability, or llama.cpp given a projector). */
  readonly vision: boolean;
}

type Body = Record<string, unknown>;

/** A body the engine refuses: the 400 names `param` and says `detail`. */
export interface RefusalRule {
  readonly param: string;
  readonly detail: string;
  refuses(body: Body, model: QuirkModel): boolean;
}

/** A body the engine would refuse for want of something harmless: the body as it can take it. */
export interface AmendRule {
  amend(body: Body): Body | undefined;
}

export interface EngineQuirks {
  readonly refuses: readonly RefusalRule[];
  readonly amends: readonly AmendRule[];
  /** Texts in the engine's 5xx answers that mean the request, not the engine, is at fault. */
  readonly refusalTexts: readonly RegExp[];
}

const generates = new Set(["/chat/completions", "/completions"]);

/** llama-server's refusals, as its 500s word them (tools/server/utils.hpp, common/chat.cpp). */
const llamaRefusalTexts = [
  /Only one completion choice is allowed/,
  /Failed to parse tools/,
  /Failed to parse messages/,
  /Expected 'messages' to be an array/,
  /image input is not supported/i,
  /Cannot use tools with stream/,
  /Unsupported param/,
];

const llamacpp: EngineQuirks = {
  refuses: [
    {
      param: "n",
      detail: "this engine gives one choice per request: send n of 1 (or leave it out)",
      refuses: (b) => b.n !== undefined && b.n !== null && b.n !== 1,
    },
    {
      param: "messages",
      detail: "messages must be an array of messages",
      refuses: (b) => b.messages !== undefined && !Array.isArray(b.messages),
    },
    {
      param: "messages",
      detail: "this model reads no images: send text only, or use a model with vision",
      refuses: (b, m) => !m.vision && hasImage(b.messages),
    },
  ],
  amends: [{ amend: describeTools }],
  refusalTexts: llamaRefusalTexts,
};

/**
 * Per engine. The simulated engine refuses nothing, but its llama.cpp mode answers with
 * llama-server's texts, so those are read as llama-server's are.
 */
export const engineQuirks: Readonly<Partial<Record<EngineName, EngineQuirks>>> = {
  llamacpp,
  sim: { refuses: [], amends: [], refusalTexts: llamaRefusalTexts },
};

/** The refusal texts of an engine (none for one without a table). */
export function refusalTexts(engine: string): readonly RegExp[] {
  return engineQuirks[engine as EngineName]?.refusalTexts ?? [];
}

/**
 * The body as the engine can take it, or the rule it breaks. Only generation paths: embeddings
 * and rerank bodies carry none of these fields.
 */
export function meetQuirks(
  engine: string,
  path: string,
  body: Body,
  model: QuirkModel,
): { body: Body } | { refused: RefusalRule } {
  const quirks = engineQuirks[engine as EngineName];
  if (!quirks || !generates.has(path)) return { body };
  const refused = quirks.refuses.find((r) => r.refuses(body, model));
  if (refused) return { refused };
  let out = body;
  for (const rule of quirks.amends) out = rule.amend(out) ?? out;
  return { body: out };
}

function hasImage(messages: unknown): boolean {
  if (!Array.isArray(messages)) return false;
  return messages.some((m) =>
    isRecord(m) && Array.isArray(m.content) &&
    m.content.some((p) => isRecord(p) && (p.type === "image_url" || p.type === "input_image"))
  );
}

/**
 * llama.cpp reads a function's `description` and `parameters` as required (OpenAI does not):
 * an empty description and an object without properties change nothing the model is told.
 */
function describeTools(body: Body): Body | undefined {
  if (!Array.isArray(body.tools)) return undefined;
  let changed = false;
  const tools = body.tools.map((t) => {
    if (!isRecord(t) || !isRecord(t.function)) return t;
    const f = t.function;
    if (typeof f.description === "string" && isRecord(f.parameters)) return t;
    changed = true;
    return {
      ...t,
      function: {
        ...f,
        description: typeof f.description === "string" ? f.description : "",
        parameters: isRecord(f.parameters) ? f.parameters : { type: "object", properties: {} },
      },
    };
  });
  return changed ? { ...body, tools } : undefined;
}
