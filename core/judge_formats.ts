/**
 * How each family of guard models is asked and how it answers: the judge's request (the
 * conversation as chat messages, which the model's own chat template turns into its task prompt)
 * and its verdict text, read back. Declarative on purpose: a family is a few lines of data, and
 * one contract suite (judge_formats_test.ts) holds every one to the same promises. The control
 * plane asks with these, the simulated engine answers with them, so both live in core/.
 */

export const judgeFormatNames = ["llama-guard-3", "qwen3guard"] as const;
export type JudgeFormatName = (typeof judgeFormatNames)[number];

export interface JudgeVerdict {
  unsafe: boolean;
  /** The family's own category names or codes (`S1`, `Violent`); empty when it names none. */
  categories: string[];
}

/** One turn of the conversation the judge reads. */
export interface JudgeTurn {
  role: "user" | "assistant";
  content: string;
}

export interface JudgeFormat {
  readonly name: JudgeFormatName;
  /** Enough for the longest verdict the family writes. */
  readonly maxTokens: number;
  /** The judge's answer text; null when it is no verdict of this family. */
  parse(text: string): JudgeVerdict | null;
  /** A verdict as the family writes it (the simulated engine's answer, the contract's samples). */
  render(v: JudgeVerdict): string;
}

/**
 * Llama Guard 3: `safe`, or `unsafe` and a line of category codes (S1…S14). Its chat template
 * wraps the conversation in the task and the category list, so the turns go as they are.
 */
const llamaGuard3: JudgeFormat = {
  name: "llama-guard-3",
  maxTokens: 20,
  parse(text) {
    const lines = text.trim().split(/\r?\n/).map((l) => l.trim());
    const first = lines[0]?.toLowerCase();
    if (first === "safe") return { unsafe: false, categories: [] };
    if (first !== "unsafe") return null;
    const codes = (lines[1] ?? "").split(",").map((c) => c.trim()).filter((c) => /^S\d+$/i.test(c));
    return { unsafe: true, categories: codes.map((c) => c.toUpperCase()) };
  },
  render(v) {
    return v.unsafe ? `unsafe\n${(v.categories.length ? v.categories : ["S1"]).join(",")}` : "safe";
  },
};

/**
 * Qwen3Guard (Gen): `Safety: Safe|Unsafe|Controversial` and `Categories: …` (and, judging an
 * answer, `Refusal: Yes|No`). Controversial counts as unsafe: a guard that lets through what its
 * own model doubts is not the strict reading a company policy asks for.
 */
const qwen3Guard: JudgeFormat = {
  name: "qwen3guard",
  maxTokens: 40,
  parse(text) {
    const safety = /Safety:\s*(Safe|Unsafe|Controversial)\b/i.exec(text)?.[1]?.toLowerCase();
    if (!safety) return null;
    const listed = /Categories:\s*([^\n]*)/i.exec(text)?.[1] ?? "";
    const categories = listed.split(",").map((c) => c.trim()).filter((c) => c && c !== "None");
    return safety === "safe" ? { unsafe: false, categories: [] } : { unsafe: true, categories };
  },
  render(v) {
    return v.unsafe
      ? `Safety: Unsafe\nCategories: ${
        (v.categories.length ? v.categories : ["Violent"]).join(", ")
      }`
      : "Safety: Safe\nCategories: None";
  },
};

const formats: Readonly<Record<JudgeFormatName, JudgeFormat>> = {
  "llama-guard-3": llamaGuard3,
  qwen3guard: qwen3Guard,
};

export function judgeFormat(name: JudgeFormatName): JudgeFormat {
  return formats[name];
}

export function isJudgeFormatName(s: string): s is JudgeFormatName {
  return (judgeFormatNames as readonly string[]).includes(s);
}

/**
 * The body of the judge's chat request. `cache_prompt: false`: a judge is asked about a new text
 * each time, and llama.cpp's prompt cache only grew the judge's memory (3.2 GB after a day,
 * where 1.6 GB is its steady size) until it no longer fitted its machine.
 */
export function judgeRequestBody(
  model: string,
  format: JudgeFormat,
  turns: readonly JudgeTurn[],
): Record<string, unknown> {
  return {
    model,
    messages: turns.map((t) => ({ role: t.role, content: t.content })),
    max_tokens: format.maxTokens,
    temperature: 0,
    stream: false,
    cache_prompt: false,
  };
}
