/**
 * A Responses API request turned into an OpenAI chat completions body, which every engine llmgw
 * runs understands: `instructions` and the conversation so far (the items `previous_response_id`
 * continues) and this request's `input` become messages; function tools, `text.format` and
 * `reasoning` become their chat counterparts. A field that cannot be translated gets a 400
 * naming it; built-in tools that need the outside world are refused by name.
 */
import { AppError } from "../../core/errors.ts";
import { isRecord } from "../router/json_fields.ts";

type Json = Record<string, unknown>;

export interface TranslatedResponseRequest {
  /** The chat completions body for dispatch(). */
  body: Json;
  /** This request's input as Responses items, each with an id (what input_items lists). */
  input: Json[];
  stream: boolean;
  /** Whether the model's reasoning goes back as a reasoning item with a summary. */
  summary: boolean;
  /** The file_search tool's knowledge bases, when the request has one (server/responses/file_search.ts). */
  fileSearch: FileSearchTool | undefined;
}

export interface FileSearchTool {
  /** `vector_store_ids`: collection ids or names. */
  collections: string[];
  maxResults: number;
  /** `include: ["file_search_call.results"]`: the passages go back in the call item. */
  includeResults: boolean;
}

/** Tools that run at OpenAI (or need the outside world): refused here, by name. */
const builtInTools: Record<string, string> = {
  web_search: "web search",
  web_search_preview: "web search",
  code_interpreter: "the code interpreter",
  computer_use: "computer use",
  computer_use_preview: "computer use",
  image_generation: "image generation",
  mcp: "remote MCP servers",
  local_shell: "the local shell tool",
  shell: "the shell tool",
};

export function toChatRequest(
  req: Json,
  history: Json[],
  newId: (prefix: string) => string,
): TranslatedResponseRequest {
  const input = inputItems(req.input, newId);
  const messages: Json[] = [...instructionMessages(req.instructions)];
  messages.push(...itemsToMessages([...history, ...input]));
  const body: Json = { model: req.model, messages };
  if (req.max_output_tokens !== undefined && req.max_output_tokens !== null) {
    body.max_tokens = req.max_output_tokens;
  }
  for (const field of ["temperature", "top_p", "parallel_tool_calls"] as const) {
    if (req[field] !== undefined && req[field] !== null) body[field] = req[field];
  }
  const user = req.safety_identifier ?? req.user;
  if (typeof user === "string") body.user = user;
  const stream = req.stream === true;
  if (stream) body.stream = true;
  // The Responses stream ends with usage in response.completed, so the chat stream must carry it.
  if (stream) body.stream_options = { include_usage: true };
  const include = includeOf(req.include);
  if (include.includes("message.output_text.logprobs")) {
    body.logprobs = true;
    if (typeof req.top_logprobs === "number") body.top_logprobs = req.top_logprobs;
  }
  const tools = translateTools(req.tools);
  const fileSearch = fileSearchTool(req.tools, req.include);
  if (tools.length) body.tools = tools;
  if (req.tool_choice !== undefined && req.tool_choice !== null) {
    body.tool_choice = translateToolChoice(req.tool_choice);
  }
  const format = responseFormat(req.text);
  if (format) body.response_format = format;
  const thinking = thinkingSwitch(req.reasoning);
  if (thinking !== undefined) body.chat_template_kwargs = { enable_thinking: thinking };
  const summary = thinking === true && isRecord(req.reasoning) &&
    typeof req.reasoning.summary === "string" && req.reasoning.summary !== "none";
  if (req.background === true && req.store === false) {
    throw invalid("store", "'background' responses are kept: 'store' cannot be false with it");
  }
  return { body, input, stream, summary, fileSearch };
}

function instructionMessages(instructions: unknown): Json[] {
  if (instructions === undefined || instructions === null || instructions === "") return [];
  if (typeof instructions !== "string") {
    throw invalid("instructions", "'instructions' must be a string");
  }
  return [{ role: "system", content: instructions }];
}

/** `input` as items: a string is one user message; each item gets an id if it has none. */
function inputItems(input: unknown, newId: (prefix: string) => string): Json[] {
  if (typeof input === "string") {
    return [{
      id: newId("msg"),
      type: "message",
      role: "user",
      content: [{ type: "input_text", text: input }],
    }];
  }
  if (!Array.isArray(input)) throw invalid("input", "'input' must be a string or a list of items");
  return input.map((item, i) => {
    const at = `input.${i}`;
    if (!isRecord(item)) throw invalid(at, `'${at}' must be an object`);
    const type = item.type ?? "message";
    if (type === "message" && typeof item.content === "string") {
      const part = item.role === "assistant" ? "output_text" : "input_text";
      return {
        id: item.id ?? newId("msg"),
        type,
        role: item.role,
        content: [{ type: part, text: item.content }],
      };
    }
    const prefix = type === "message" ? "msg" : type === "function_call_output" ? "fco" : "item";
    return { ...item, type, id: item.id ?? newId(prefix) };
  });
}

/**
 * Items as chat messages. Consecutive function calls are one assistant message with several
 * tool_calls, as chat templates expect; reasoning and file search items are not shown to the
 * model again.
 */
export function itemsToMessages(items: Json[]): Json[] {
  const out: Json[] = [];
  items.forEach((item, i) => {
    const at = `input.${i}`;
    switch (item.type) {
      case "message":
        out.push(messageOf(item, at));
        break;
      case "function_call": {
        if (typeof item.call_id !== "string" || typeof item.name !== "string") {
          throw invalid(at, `'${at}' needs a string 'call_id' and 'name'`);
        }
        const call = {
          id: item.call_id,
          type: "function",
          function: { name: item.name, arguments: String(item.arguments ?? "") },
        };
        const last = out.at(-1);
        if (last?.role === "assistant" && Array.isArray(last.tool_calls)) {
          last.tool_calls.push(call);
        } else if (last?.role === "assistant" && !last.tool_calls) last.tool_calls = [call];
        else out.push({ role: "assistant", content: null, tool_calls: [call] });
        break;
      }
      case "function_call_output":
        if (typeof item.call_id !== "string") {
          throw invalid(`${at}.call_id`, `'${at}.call_id' must be a string`);
        }
        out.push({
          role: "tool",
          tool_call_id: item.call_id,
          content: outputText(item.output, at),
        });
        break;
      case "reasoning":
      // The passages a search found were this turn's; a next turn searches again.
      case "file_search_call":
        break;
      default:
        throw invalid(`${at}.type`, `'${at}': items of type '${item.type}' are not supported here`);
    }
  });
  return out;
}

function messageOf(item: Json, at: string): Json {
  const role = item.role === "developer" ? "system" : item.role;
  if (role !== "user" && role !== "assistant" && role !== "system") {
    throw invalid(`${at}.role`, `'${at}.role' must be user, assistant, system or developer`);
  }
  if (!Array.isArray(item.content)) {
    throw invalid(`${at}.content`, `'${at}.content' must be a string or a list of parts`);
  }
  const parts = item.content.map((p, j) => partOf(p, `${at}.content.${j}`));
  const texts = parts.filter((p) => p.type === "text");
  if (role !== "user" || texts.length === parts.length) {
    return { role, content: texts.map((p) => p.text).join(role === "assistant" ? "" : "\n") };
  }
  return { role, content: parts };
}

function partOf(p: unknown, at: string): Json {
  if (!isRecord(p)) throw invalid(at, `'${at}' must be a content part`);
  switch (p.type) {
    case "input_text":
    case "output_text":
    case "text":
      if (typeof p.text !== "string") throw invalid(`${at}.text`, `'${at}.text' must be a string`);
      return { type: "text", text: p.text };
    case "refusal":
      return { type: "text", text: String(p.refusal ?? "") };
    case "input_image":
      if (typeof p.image_url !== "string") {
        throw invalid(`${at}.image_url`, `'${at}': only images given by image_url are supported`);
      }
      return {
        type: "image_url",
        image_url: { url: p.image_url, ...(p.detail ? { detail: p.detail } : {}) },
      };
    default:
      throw invalid(`${at}.type`, `'${at}': parts of type '${p.type}' are not supported here`);
  }
}

function outputText(output: unknown, at: string): string {
  if (typeof output === "string") return output;
  if (!Array.isArray(output)) {
    throw invalid(`${at}.output`, `'${at}.output' must be a string or a list of parts`);
  }
  return output.map((p, j) => {
    const part = partOf(p, `${at}.output.${j}`);
    if (part.type !== "text") {
      throw invalid(`${at}.output.${j}`, `'${at}.output.${j}': a tool's output here is text`);
    }
    return part.text;
  }).join("\n");
}

function translateTools(tools: unknown): Json[] {
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) throw invalid("tools", "'tools' must be a list of tools");
  return tools.flatMap((t, i) => {
    const at = `tools.${i}`;
    if (!isRecord(t) || typeof t.type !== "string") throw invalid(at, `'${at}' needs a type`);
    if (t.type === "file_search") return []; // run by the gateway before the model, not by it
    if (t.type !== "function") {
      const what = builtInTools[t.type] ?? `the tool type '${t.type}'`;
      throw invalid(`${at}.type`, `'${at}': ${what} ('${t.type}') is not available here`);
    }
    if (typeof t.name !== "string") throw invalid(`${at}.name`, `'${at}.name' must be a string`);
    const fn: Json = { name: t.name, parameters: t.parameters ?? { type: "object" } };
    if (typeof t.description === "string") fn.description = t.description;
    if (typeof t.strict === "boolean") fn.strict = t.strict;
    return [{ type: "function", function: fn }];
  });
}

/** The file_search tool (one; several are one search over all their collections). */
function fileSearchTool(tools: unknown, include: unknown): FileSearchTool | undefined {
  if (!Array.isArray(tools)) return undefined;
  const found = tools.map((t, i) => [t, i] as const)
    .filter(([t]) => isRecord(t) && t.type === "file_search");
  if (found.length === 0) return undefined;
  const collections: string[] = [];
  let maxResults = 5;
  for (const [t, i] of found) {
    const ids = (t as Json).vector_store_ids;
    if (!Array.isArray(ids) || ids.length === 0 || ids.some((x) => typeof x !== "string")) {
      throw invalid(
        `tools.${i}.vector_store_ids`,
        `'tools.${i}.vector_store_ids' must list knowledge bases`,
      );
    }
    collections.push(...ids as string[]);
    const max = (t as Json).max_num_results;
    if (max !== undefined) {
      if (typeof max !== "number" || !Number.isInteger(max) || max < 1 || max > 50) {
        throw invalid(`tools.${i}.max_num_results`, `'tools.${i}.max_num_results' must be 1 to 50`);
      }
      maxResults = max;
    }
  }
  const includeResults = Array.isArray(include) && include.includes("file_search_call.results");
  return { collections: [...new Set(collections)], maxResults, includeResults };
}

function translateToolChoice(choice: unknown): unknown {
  if (choice === "auto" || choice === "none" || choice === "required") return choice;
  if (isRecord(choice) && choice.type === "function" && typeof choice.name === "string") {
    return { type: "function", function: { name: choice.name } };
  }
  if (isRecord(choice) && typeof choice.type === "string" && builtInTools[choice.type]) {
    throw invalid("tool_choice", `'tool_choice': '${choice.type}' is not available here`);
  }
  throw invalid("tool_choice", "'tool_choice' must be auto, none, required or a function");
}

/**
 * What `include` may ask. The file search's results and the text's logprobs are given; the
 * others name what is never here (the encrypted reasoning a stateless client such as Codex asks
 * for, built-in tools' outputs), so asking for them is no error and gives nothing.
 */
const includable = new Set([
  "file_search_call.results",
  "message.output_text.logprobs",
  "reasoning.encrypted_content",
  "message.input_image.image_url",
  "web_search_call.results",
  "web_search_call.action.sources",
  "code_interpreter_call.outputs",
  "computer_call_output.output.image_url",
]);

function includeOf(include: unknown): string[] {
  if (include === undefined || include === null) return [];
  if (!Array.isArray(include)) throw invalid("include", "'include' must be a list");
  include.forEach((v, i) => {
    if (typeof v !== "string" || !includable.has(v)) {
      throw invalid(`include.${i}`, `'include.${i}': '${v}' is not something a response includes`);
    }
  });
  return include;
}

/** `text.format` → response_format: a JSON schema, JSON, or plain text (nothing to send). */
function responseFormat(text: unknown): Json | undefined {
  if (text === undefined || text === null) return undefined;
  if (!isRecord(text)) throw invalid("text", "'text' must be an object");
  const f = text.format;
  if (f === undefined || f === null) return undefined;
  if (!isRecord(f)) throw invalid("text.format", "'text.format' must be an object");
  switch (f.type) {
    case "text":
      return undefined;
    case "json_object":
      return { type: "json_object" };
    case "json_schema": {
      if (typeof f.name !== "string" || !isRecord(f.schema)) {
        throw invalid("text.format", "'text.format' needs a 'name' and a 'schema'");
      }
      const schema: Json = { name: f.name, schema: f.schema };
      if (typeof f.strict === "boolean") schema.strict = f.strict;
      if (typeof f.description === "string") schema.description = f.description;
      return { type: "json_schema", json_schema: schema };
    }
  }
  throw invalid("text.format.type", "'text.format.type' must be text, json_object or json_schema");
}

/** `reasoning.effort` → the chat template's thinking switch; absent leaves its default alone. */
function thinkingSwitch(reasoning: unknown): boolean | undefined {
  if (reasoning === undefined || reasoning === null) return undefined;
  if (!isRecord(reasoning)) throw invalid("reasoning", "'reasoning' must be an object");
  const effort = reasoning.effort;
  if (effort === undefined || effort === null) return reasoning.summary ? true : undefined;
  if (effort === "none") return false;
  if (["minimal", "low", "medium", "high", "xhigh"].includes(String(effort))) return true;
  throw invalid(
    "reasoning.effort",
    "'reasoning.effort' must be none, minimal, low, medium or high",
  );
}

function invalid(param: string, detail: string): AppError {
  return new AppError("invalid_request", { detail }, param);
}
