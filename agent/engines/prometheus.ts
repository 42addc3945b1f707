/**
 * A small reader for the Prometheus text exposition format: enough for the gauges engines publish.
 * Comments, HELP/TYPE lines and lines it cannot read are skipped rather than failing the whole
 * read, because one odd line from an engine must not turn its load into "unknown".
 */

export interface PromSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const namePattern = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;

export function parsePrometheus(text: string): PromSample[] {
  const out: PromSample[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const sample = parseLine(line);
    if (sample) out.push(sample);
  }
  return out;
}

function parseLine(line: string): PromSample | undefined {
  const name = namePattern.exec(line)?.[0];
  if (!name) return undefined;
  let rest = line.slice(name.length);
  let labels: Record<string, string> = {};
  if (rest.startsWith("{")) {
    const parsed = parseLabels(rest);
    if (!parsed) return undefined;
    labels = parsed.labels;
    rest = rest.slice(parsed.length);
  }
  // The value, optionally followed by a timestamp we do not need.
  const valueText = rest.trim().split(/\s+/)[0];
  if (valueText === undefined || valueText === "") return undefined;
  const value = parseValue(valueText);
  if (value === undefined) return undefined;
  return { name, labels, value };
}

function parseValue(text: string): number | undefined {
  switch (text) {
    case "NaN":
      return NaN;
    case "+Inf":
    case "Inf":
      return Infinity;
    case "-Inf":
      return -Infinity;
  }
  const n = Number(text);
  return Number.isNaN(n) ? undefined : n;
}

/** Reads `{a="x",b="y"}` from the start of `s`; returns the labels and how many characters it took. */
function parseLabels(s: string): { labels: Record<string, string>; length: number } | undefined {
  const labels: Record<string, string> = {};
  let i = 1;
  while (i < s.length) {
    while (s[i] === " " || s[i] === ",") i++;
    if (s[i] === "}") return { labels, length: i + 1 };
    const key = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(s.slice(i))?.[0];
    if (!key) return undefined;
    i += key.length;
    while (s[i] === " ") i++;
    if (s[i] !== "=") return undefined;
    i++;
    while (s[i] === " ") i++;
    if (s[i] !== '"') return undefined;
    i++;
    let value = "";
    for (; i < s.length && s[i] !== '"'; i++) {
      if (s[i] === "\\" && i + 1 < s.length) {
        i++;
        value += s[i] === "n" ? "\n" : s[i];
      } else {
        value += s[i];
      }
    }
    if (s[i] !== '"') return undefined;
    i++;
    labels[key] = value;
  }
  return undefined;
}
