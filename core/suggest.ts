/**
 * "Did you mean …" for a mistyped command, verb or flag: the known word closest by optimal
 * string alignment distance (Damerau–Levenshtein: an insertion, deletion, substitution or swap of
 * two neighbours costs one), if it is close enough to be what was meant.
 */

/** The edit distance between `a` and `b`, an adjacent swap counting as one edit. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from(
    { length: a.length + 1 },
    (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        v = Math.min(v, d[i - 2]![j - 2]! + 1);
      }
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The closest of `known` to `word`: within a third of the word's length (at least one edit);
 * failing that, those `word` begins (`--expires` → `--expires-at`, `--expires-in`), at most two.
 * Empty when nothing is that close.
 */
export function closest(word: string, known: Iterable<string>): string[] {
  const w = word.toLowerCase();
  const names = [...known];
  let best: { name: string; d: number } | undefined;
  for (const name of names) {
    const d = editDistance(w, name.toLowerCase());
    if (!best || d < best.d) best = { name, d };
  }
  if (best && best.d <= Math.max(1, Math.floor(w.length / 3))) return [best.name];
  const starts = names.filter((k) => w.length >= 2 && k.toLowerCase().startsWith(w));
  return starts.length <= 2 ? starts : [];
}

/** `; did you mean 'x'?`, `; did you mean 'x' or 'y'?`, or nothing. */
export function didYouMean(word: string, known: Iterable<string>, render = (s: string) => s) {
  const c = closest(word, known);
  return c.length ? `; did you mean ${c.map((x) => `'${render(x)}'`).join(" or ")}?` : "";
}
