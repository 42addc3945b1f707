/**
 * Tables for people (`ctl … list`, `mirror list`): worded headers, times as "3 min ago" or a local
 * date, a name beside an id, and no JSON in a cell. `--json` never comes through here: scripts
 * read the API's rows exactly as they were.
 */

/** Columns padded to their widest cell, two spaces apart; trailing blanks trimmed. */
export function renderTable(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const cells = [head, ...rows];
  const widths = head.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  return cells.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd()).join("\n");
}

const minute = 60_000, hour = 3_600_000, day = 86_400_000;

/**
 * A time within a day of now as "just now", "45 s ago", "3 min ago", "5 h ago" (or "in 3 min");
 * further off, the local date and minute (`2026-11-30 14:05`), so a column reads the same way
 * for every row of that age.
 */
export function when(ms: number | null | undefined, now = Date.now()): string {
  if (ms === null || ms === undefined) return "-";
  const d = now - ms;
  const a = Math.abs(d);
  if (a >= day) return localDate(ms);
  if (a < 5_000) return "just now";
  const n = a < minute
    ? `${Math.round(a / 1000)} s`
    : a < hour
    ? `${Math.round(a / minute)} min`
    : `${Math.round(a / hour)} h`;
  return d >= 0 ? `${n} ago` : `in ${n}`;
}

/** `YYYY-MM-DD HH:MM` in this machine's time zone. */
export function localDate(ms: number): string {
  const t = new Date(ms);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${t.getFullYear()}-${p(t.getMonth() + 1)}-${p(t.getDate())} ${p(t.getHours())}:${
    p(t.getMinutes())
  }`;
}

/** A value as words: a list joined by commas, an object as `k=v` pairs, nothing as "-". */
export function cellText(v: unknown): string {
  if (v === null || v === undefined || v === "") return "-";
  if (Array.isArray(v)) return v.length ? v.map(cellText).join(", ") : "-";
  if (typeof v === "object") {
    const parts = Object.entries(v as Record<string, unknown>).map(([k, x]) =>
      `${k}=${cellText(x)}`
    );
    return parts.length ? parts.join(", ") : "-";
  }
  return String(v);
}

/** "Research (prj_01…)": the name people know beside the id scripts use; the id alone if unknown. */
export function named(id: unknown, names: ReadonlyMap<string, string>): string {
  if (typeof id !== "string" || !id) return "-";
  const n = names.get(id);
  return n && n !== id ? `${n} (${id})` : id;
}

/**
 * What changed between an audit row's before and after, one line per field:
 * `rpm: 60 → 600`, `name: (none) → Research`. Fields equal on both sides are left out; a whole
 * value created or removed lists each of its fields.
 */
export function changes(before: unknown, after: unknown): string[] {
  const b = flatten(before), a = flatten(after);
  const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])];
  return keys.filter((k) => b[k] !== a[k]).map((k) =>
    `${k || "value"}: ${b[k] ?? "(none)"} → ${a[k] ?? "(none)"}`
  );
}

/** Nested objects as dotted keys, each leaf as cell text. */
function flatten(
  v: unknown,
  prefix = "",
  out: Record<string, string> = {},
): Record<string, string> {
  if (v === null || v === undefined) return out;
  if (typeof v === "object" && !Array.isArray(v)) {
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      flatten(x, prefix ? `${prefix}.${k}` : k, out);
    }
    return out;
  }
  out[prefix] = cellText(v);
  return out;
}
