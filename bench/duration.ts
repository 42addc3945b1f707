/** Durations as people type them on a command line: `10s`, `500ms`, `2m`; a bare number is seconds. */
export function parseDuration(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$/.exec(text);
  if (!m) throw new TypeError(`not a duration: "${text}" (examples: 500ms, 10s, 2m)`);
  const n = Number(m[1]);
  const unit = m[2] ?? "s";
  return Math.round(n * (unit === "ms" ? 1 : unit === "s" ? 1000 : 60_000));
}
