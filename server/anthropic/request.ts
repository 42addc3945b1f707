/**
 * An Anthropic Messages request turned into an OpenAI chat completions body, which every engine
 * llmgw runs understands. Only what needs translating is read; sampling fields are passed as they
 * came so the engine, not llmgw, decides what it accepts. A field that must be translated and
 * cannot be gets a 400 naming it.
 */
import { AppError } from "../../core/errors.ts";
import { isRecord } from "../router/json_fields.ts";

type Json = Record<string, unknown>;

export interface TranslatedRequest {
  /** The OpenAI chat completions body for dispatch(). */
  body: Json;
  /** The model name as the client wrote it, echoed in the answer. */
  model: unknown;
  stream: boolean;
  /** Whether reasoning the engine returns goes back as thinking blocks (only when asked). */
  thinking: boolean;
  /** The client's stop sequences, to name the one that ended an answer when the engine says. */
  stopSequences: string[];
}

export function toChatRequest(req: Json): TranslatedRequest {
  const messages: Json[] = [...systemMessages(req.system)];
  if (!Array.isArray(req.messages)) {
    throw invalid("messages", "'messages' must be an array of messages");
  }
  req.messages.forEach((m, i) => messages.push(...translateMessage(m, i)));

  // Anthropic requires it, so clients written against Anthropic always send it; one that does
  // not would be refused there too.
  if (
    typeof req.max_tokens !== "number" || !Number.isInteger(req.max_tokens) || req.max_tokens < 1
  ) {
    throw invalid("max_tokens", "'max_tokens' is required: a whole number of tokens, at least 1");
  }
  const body: Json = { model: req.model, messages, max_tokens: req.max_tokens };
  for (const field of ["temperature", "top_p", "top_k"] as const) {
    if (req[field] !== undefined) body[field] = req[field];
  }
  const stopSequences = Array.isArray(req.stop_sequences)
    ? req.stop_sequences.filter((s): s is string => typeof s === "string")
    : [];
  if (req.stop_sequences !== undefined) body.stop = req.stop_sequences;
  const stream = req.stream === true;
  if (req.stream !== undefined) body.stream = req.stream;
  // Usage is how Anthropic's message_delta reports tokens, so the stream must carry it.
  if (stream) body.stream_options = { include_usage: true };
  if (isRecord(req.metadata)) {
    const user = req.metadata.user_id ?? req.metadata.user;
    if (user !== undefined && user !== null) body.user = user;
  }
  if (req.tools !== undefined) body.tools = translateTools(req.tools);
  if (req.tool_choice !== undefined) Object.assign(body, translateToolChoice(req.tool_choice));

  const thinking = thinkingSwitch(req.thinking);
  if (thinking !== undefined) body.chat_template_kwargs = { enable_thinking: thinking };
  return { body, model: req.model, stream, thinking: thinking === true, stopSequences };
}

function systemMessages(system: unknown): Json[] {
  if (system === undefined || system === null) return [];
  if (typeof system === "string") return system ? [{ role: "system", content: system }] : [];
  if (!Array.isArray(system)) {
    throw invalid("system", "'system' must be a string or a list of text blocks");
  }
  const texts = system.map((b, i) => {
    if (!isRecord(b) || b.type !== "text" || typeof b.text !== "string") {
      throw invalid(`system.${i}`, `'system.${i}' must be a text block`);
    }
    return b.text;
  });
  return texts.length ? [{ role: "system", content: texts.join("\n") }] : [];
}

function translateMessage(m: unknown, i: number): Json[] {
  const at = `messages.${i}`;
  if (!isRecord(m)) throw invalid(at, `'${at}' must be an object`);
  if (m.role !== "user" && m.role !== "assistant") {
    throw invalid(`${at}.role`, `'${at}.role' must be 'user' or 'assistant'`);
  }
  if (typeof m.content === "string") return [{ role: m.role, content: m.content }];
  if (!Array.isArray(m.content)) {
    throw invalid(`${at}.content`, `'${at}.content' must be a string or a list of blocks`);
  }
  const blocks = m.content.map((b, j) => {
    if (!isRecord(b) || typeof b.type !== "string") {
      throw invalid(`${at}.content.${j}`, `'${at}.content.${j}' must be a block with a type`);
    }
    return b;
  });
  return m.role === "assistant" ? [assistantMessage(blocks, at)] : userMessages(blocks, at);
}

/** Text joins into the content; tool_use blocks become tool_calls; earlier thinking is dropped. */
function assistantMessage(blocks: Json[], at: string): Json {
  const texts: string[] = [];
  const toolCalls: Json[] = [];
  blocks.forEach((b, j) => {
    const where = `${at}.content.${j}`;
    switch (b.type) {
      case "text":
        texts.push(textOf(b, where));
        break;
      case "tool_use":
        if (typeof b.id !== "string" || typeof b.name !== "string") {
          throw invalid(where, `'${where}' needs a string 'id' and 'name'`);
        }
        toolCalls.push({
          id: b.id,
          type: "function",
          function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) },
        });
        break;
      // A model's earlier reasoning is not shown to it again, as with Anthropic's own models.
      case "thinking":
      case "redacted_thinking":
        break;
      default:
        throw unsupportedBlock(b.type as string, where);
    }
  });
  const message: Json = { role: "assistant", content: texts.length ? texts.join("") : null };
  if (toolCalls.length) message.tool_calls = toolCalls;
  else if (message.content === null) message.content = "";
  return message;
}

/**
 * Tool results become `tool` messages, which must directly follow the assistant's tool calls,
 * so they go first; the user's other blocks follow as one user message.
 */
function userMessages(blocks: Json[], at: string): Json[] {
  const tools: Json[] = [];
  const parts: Json[] = [];
  blocks.forEach((b, j) => {
    const where = `${at}.content.${j}`;
    switch (b.type) {
      case "text":
        parts.push({ type: "text", text: textOf(b, where) });
        break;
      case "image":
        parts.push(imagePart(b, where));
        break;
      case "document":
        parts.push({ type: "text", text: documentText(b, where) });
        break;
      case "tool_result": {
        if (typeof b.tool_use_id !== "string") {
          throw invalid(where, `'${where}.tool_use_id' must be a string`);
        }
        const result = toolResultContent(b.content, where);
        tools.push({ role: "tool", tool_call_id: b.tool_use_id, content: result.text });
        // OpenAI's tool messages hold text only; pictures a tool returned follow as the user's.
        parts.push(...result.images);
        break;
      }
      default:
        throw unsupportedBlock(b.type as string, where);
    }
  });
  if (parts.length === 0) return tools;
  const only = parts.length === 1 && parts[0]!.type === "text" ? parts[0]!.text : undefined;
  return [...tools, { role: "user", content: only ?? parts }];
}

function toolResultContent(content: unknown, where: string): { text: string; images: Json[] } {
  if (content === undefined || content === null) return { text: "", images: [] };
  if (typeof content === "string") return { text: content, images: [] };
  if (!Array.isArray(content)) {
    throw invalid(`${where}.content`, `'${where}.content' must be a string or a list of blocks`);
  }
  const texts: string[] = [];
  const images: Json[] = [];
  content.forEach((b, k) => {
    const w = `${where}.content.${k}`;
    if (isRecord(b) && b.type === "text") texts.push(textOf(b, w));
    else if (isRecord(b) && b.type === "image") images.push(imagePart(b, w));
    else throw invalid(w, `'${w}' must be a text or image block`);
  });
  return { text: texts.join("\n"), images };
}

/** Anthropic's image source (base64 or URL) as OpenAI's image_url part, base64 as a data URL. */
function imagePart(b: Json, where: string): Json {
  const src = b.source;
  if (isRecord(src) && src.type === "base64" && typeof src.data === "string") {
    const media = typeof src.media_type === "string" ? src.media_type : "image/png";
    return { type: "image_url", image_url: { url: `data:${media};base64,${src.data}` } };
  }
  if (isRecord(src) && src.type === "url" && typeof src.url === "string") {
    return { type: "image_url", image_url: { url: src.url } };
  }
  throw invalid(`${where}.source`, `'${where}.source' must be a base64 or url image source`);
}

/** Plain-text documents are text to a local model; other documents need a file reader it lacks. */
function documentText(b: Json, where: string): string {
  const src = b.source;
  if (isRecord(src) && src.type === "text" && typeof src.data === "string") {
    return typeof b.title === "string" ? `${b.title}\n\n${src.data}` : src.data;
  }
  throw invalid(`${where}.source`, `'${where}': only documents with a text source are supported`);
}

function textOf(b: Json, where: string): string {
  if (typeof b.text !== "string") {
    throw invalid(`${where}.text`, `'${where}.text' must be a string`);
  }
  return b.text;
}

function translateTools(tools: unknown): Json[] {
  if (!Array.isArray(tools)) throw invalid("tools", "'tools' must be a list of tools");
  return tools.map((t, i) => {
    const at = `tools.${i}`;
    if (!isRecord(t) || typeof t.name !== "string") {
      throw invalid(at, `'${at}' must be a tool with a string 'name'`);
    }
    // Anthropic's server tools (web search, code execution, …) run at Anthropic, not here.
    if (t.type !== undefined && t.type !== "custom") {
      throw invalid(`${at}.type`, `'${at}': the server tool '${t.type}' is not available here`);
    }
    const fn: Json = { name: t.name, parameters: t.input_schema ?? { type: "object" } };
    if (typeof t.description === "string") fn.description = t.description;
    return { type: "function", function: fn };
  });
}

function translateToolChoice(choice: unknown): Json {
  if (!isRecord(choice)) throw invalid("tool_choice", "'tool_choice' must be an object");
  const out: Json = {};
  switch (choice.type) {
    case "auto":
      out.tool_choice = "auto";
      break;
    case "any":
      out.tool_choice = "required";
      break;
    case "none":
      out.tool_choice = "none";
      break;
    case "tool":
      if (typeof choice.name !== "string") {
        throw invalid("tool_choice.name", "'tool_choice.name' must name a tool");
      }
      out.tool_choice = { type: "function", function: { name: choice.name } };
      break;
    default:
      throw invalid("tool_choice.type", "'tool_choice.type' must be auto, any, tool or none");
  }
  if (choice.disable_parallel_tool_use === true) out.parallel_tool_calls = false;
  return out;
}

/** `thinking` → the chat template's switch; undefined leaves the template's default alone. */
function thinkingSwitch(thinking: unknown): boolean | undefined {
  if (thinking === undefined || thinking === null) return undefined;
  if (!isRecord(thinking)) throw invalid("thinking", "'thinking' must be an object");
  if (thinking.type === "enabled" || thinking.type === "adaptive") return true;
  if (thinking.type === "disabled") return false;
  throw invalid("thinking.type", "'thinking.type' must be 'enabled' or 'disabled'");
}

function unsupportedBlock(type: string, where: string): AppError {
  return invalid(`${where}.type`, `'${where}': blocks of type '${type}' are not supported here`);
}

function invalid(param: string, detail: string): AppError {
  return new AppError("invalid_request", { detail }, param);
}
