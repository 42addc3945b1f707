/**
 * Deny patterns run in bounded time, so no pattern an administrator writes can stall a request.
 * Two guards: llmgw's V8 flags (core/v8_flags.ts) make a regular expression that backtracks too
 * much run again on V8's non-backtracking engine, in linear time; and what that engine cannot
 * run (backreferences, lookarounds), or what blows up a backtracking engine first (a repeated
 * group holding a repetition or an alternation), is refused when the policy is set, on every
 * process alike (a test runner has no such flag).
 *
 * That engine takes neither `i` nor `u`, so patterns are matched against the normalised text
 * lower-cased: they are written in lower case.
 */

/** A pattern compiled for scanning lower-cased text, or why it is refused. */
export function compilePattern(source: string): RegExp | string {
  const refused = unsafeConstruct(source);
  if (refused) return `pattern ${JSON.stringify(source)} is refused: ${refused}`;
  try {
    return new RegExp(source, "g");
  } catch (e) {
    return `pattern ${JSON.stringify(source)} is not a valid regular expression: ${
      (e as Error).message
    }`;
  }
}

/**
 * The text lower-cased with every position kept (a span found in it is the same span of the
 * text): the few characters whose lower case is longer stay as they are.
 */
export function lowerSameLength(text: string): string {
  const lower = text.toLowerCase();
  if (lower.length === text.length) return lower;
  let out = "";
  for (const ch of text) {
    const l = ch.toLowerCase();
    out += l.length === ch.length ? l : ch;
  }
  return out;
}

/**
 * What in a pattern could make a backtracking engine take more than linear time, or undefined.
 * A small scanner over the pattern's text: escapes and classes are skipped whole.
 */
export function unsafeConstruct(source: string): string | undefined {
  // For each open group: whether it holds a quantifier or an alternation.
  const groups: { risky: boolean }[] = [];
  let lastGroupRisky = false;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i];
    if (ch === "\\") {
      const next = source[i + 1] ?? "";
      if (/[1-9]/.test(next) || next === "k") return "backreferences are not allowed";
      i++;
      lastGroupRisky = false;
      continue;
    }
    if (ch === "[") {
      i = classEnd(source, i);
      lastGroupRisky = false;
      continue;
    }
    if (ch === "(") {
      if (/^\(\?<?[=!]/.test(source.slice(i, i + 4))) return "lookarounds are not allowed";
      groups.push({ risky: false });
      continue;
    }
    if (ch === ")") {
      lastGroupRisky = groups.pop()?.risky ?? false;
      continue;
    }
    if (ch === "|") {
      const g = groups.at(-1);
      if (g) g.risky = true;
      continue;
    }
    if (ch === "*" || ch === "+" || ch === "?" || ch === "{") {
      if (ch === "?" && (source[i - 1] === "(" || isQuantifier(source[i - 1]))) continue;
      if (lastGroupRisky && source[i - 1] === ")") {
        return "a repeated group may not hold a repetition or an alternation";
      }
      const g = groups.at(-1);
      if (g) g.risky = true;
      continue;
    }
    lastGroupRisky = false;
  }
  return undefined;
}

const isQuantifier = (ch: string | undefined) =>
  ch === "*" || ch === "+" || ch === "?" || ch === "}";

function classEnd(source: string, start: number): number {
  for (let i = start + 1; i < source.length; i++) {
    if (source[i] === "\\") i++;
    else if (source[i] === "]") return i;
  }
  return source.length;
}
