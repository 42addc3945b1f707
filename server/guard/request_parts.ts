/**
 * Every text of a request that reaches a model, and of an answer that comes back, visited in
 * place: system and user messages, tool results, function-call arguments, completions prompts;
 * in answers, content, reasoning and tool-call arguments. `map` returns the text to keep; a
 * request is copied only where a text changed.
 */
type Rec = Record<string, unknown>;
/** `json`: the text is a JSON document's text (function-call arguments). */
export type TextMap = (text: string, json: boolean) => string;

const isRec = (v: unknown): v is Rec => typeof v === "object" && v !== null && !Array.isArray(v);

export function mapRequestTexts(body: Rec, map: TextMap): Rec {
  let out = body;
  if (Array.isArray(body.messages)) {
    const messages = mapArray(body.messages, (m) => isRec(m) ? mapMessage(m, map) : m);
    if (messages !== body.messages) out = { ...out, messages };
  }
  if (typeof body.prompt === "string") {
    const prompt = map(body.prompt, false);
    if (prompt !== body.prompt) out = { ...out, prompt };
  } else if (Array.isArray(body.prompt)) {
    const prompt = mapArray(body.prompt, (p) => typeof p === "string" ? map(p, false) : p);
    if (prompt !== body.prompt) out = { ...out, prompt };
  }
  return out;
}

/** One message: its content (text or parts), reasoning, and the tool calls it made. */
export function mapMessage(m: Rec, map: TextMap): Rec {
  let out = m;
  if (typeof m.content === "string") {
    const content = map(m.content, false);
    if (content !== m.content) out = { ...out, content };
  } else if (Array.isArray(m.content)) {
    const content = mapArray(m.content, (p) => {
      if (!isRec(p) || typeof p.text !== "string") return p;
      const text = map(p.text, false);
      return text === p.text ? p : { ...p, text };
    });
    if (content !== m.content) out = { ...out, content };
  }
  for (const field of ["reasoning_content", "reasoning"] as const) {
    const v = m[field];
    if (typeof v !== "string") continue;
    const t = map(v, false);
    if (t !== v) out = { ...out, [field]: t };
  }
  if (Array.isArray(m.tool_calls)) {
    const calls = mapArray(m.tool_calls, (c) => mapToolCall(c, map));
    if (calls !== m.tool_calls) out = { ...out, tool_calls: calls };
  }
  return out;
}

export function mapToolCall(c: unknown, map: TextMap): unknown {
  if (!isRec(c) || !isRec(c.function) || typeof c.function.arguments !== "string") return c;
  const args = map(c.function.arguments, true);
  return args === c.function.arguments ? c : { ...c, function: { ...c.function, arguments: args } };
}

/** An answer (chat or completions, whole): each choice's message, or its text. */
export function mapAnswerTexts(answer: Rec, map: TextMap): Rec {
  if (!Array.isArray(answer.choices)) return answer;
  const choices = mapArray(answer.choices, (ch) => {
    if (!isRec(ch)) return ch;
    if (isRec(ch.message)) {
      const message = mapMessage(ch.message, map);
      return message === ch.message ? ch : { ...ch, message };
    }
    if (typeof ch.text === "string") {
      const text = map(ch.text, false);
      return text === ch.text ? ch : { ...ch, text };
    }
    return ch;
  });
  return choices === answer.choices ? answer : { ...answer, choices };
}

function mapArray(a: unknown[], f: (v: unknown) => unknown): unknown[] {
  let out: unknown[] | undefined;
  for (let i = 0; i < a.length; i++) {
    const v = f(a[i]);
    if (v !== a[i]) (out ??= a.slice())[i] = v;
  }
  return out ?? a;
}

/**
 * Every text of a request, one after another, as a judge or an outside service reads them (blank
 * ones tell them nothing and are left out).
 */
export function requestText(body: Record<string, unknown>): string {
  const texts: string[] = [];
  mapRequestTexts(body, (t) => (t.trim() && texts.push(t), t));
  return texts.join("\n\n");
}

/** Every text of a whole answer (chat or completions), the same way. */
export function answerText(answer: Record<string, unknown>): string {
  const texts: string[] = [];
  mapAnswerTexts(answer, (t) => (t.trim() && texts.push(t), t));
  return texts.join("\n\n");
}
