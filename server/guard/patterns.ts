/**
 * Deny patterns run in bounded time, so no pattern an administrator writes can stall a request.
 * Two guards, both always: a pattern with what makes a backtracking engine blow up
 * (backreferences, lookarounds, a repeated group that holds a repetition or an alternation) is
 * refused when the policy is set, whatever engine this process has, so a policy valid on one
 * process is valid on every one; and where the process runs with V8's non-backtracking engine
 * (`--enable-experimental-regexp-engine`, in core/v8_flags.ts) the patterns run on it (`l`).
 *
 * That engine takes neither `i` nor `u`, so patterns are matched against the normalised text
 * lower-cased, on both engines alike: they are written in lower case.
 */

const linearFlag = (() => {
  try {
    new RegExp("a", "gl");
    return true;
  } catch {
    return false;
  }
})();

/** Whether patterns run on V8's linear-time engine in this process. */
export const linearEngine = linearFlag;

/** A pattern compiled for scanning lower-cased text, or why it is refused. */
export function compilePattern(source: string): RegExp | string {
  const refused = unsafeConstruct(source);
  if (refused) return `pattern ${JSON.stringify(source)} is refused: ${refused}`;
  try {
    return new RegExp(source, linearFlag ? "gl" : "g");
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
