/**
 * Deny patterns run in linear time, so no pattern an administrator writes can stall a request:
 * with V8's non-backtracking engine (the `l` flag, under `--enable-experimental-regexp-engine`)
 * when the process has it; otherwise through the backtracking engine, but only patterns without
 * what makes backtracking blow up: backreferences, lookarounds and quantified groups that hold a
 * quantifier or an alternation. Such a pattern is refused when the policy is set, not at runtime.
 */

const linearFlag = (() => {
  try {
    new RegExp("a", "l");
    return true;
  } catch {
    return false;
  }
})();

/** Whether patterns run on V8's linear-time engine in this process. */
export const linearEngine = linearFlag;

/** A pattern compiled for scanning (global, case-insensitive, Unicode), or why it is refused. */
export function compilePattern(source: string): RegExp | string {
  const refused = linearFlag ? undefined : unsafeConstruct(source);
  if (refused) return `pattern ${JSON.stringify(source)} is refused: ${refused}`;
  try {
    return new RegExp(source, linearFlag ? "gil" : "giu");
  } catch (e) {
    return `pattern ${JSON.stringify(source)} is not a valid regular expression: ${
      (e as Error).message
    }`;
  }
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
