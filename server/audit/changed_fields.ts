/**
 * The fields an audited change touched: each top-level field whose value differs between the row's
 * before and after, with both values written short. One place for the portal's audit page (and
 * any other reader of audit rows), so every reader shows a change the same way.
 */

export interface ChangedField {
  field: string;
  /** null when the field did not exist on that side (made, or removed). */
  before: string | null;
  after: string | null;
}

const longest = 80;

/** A value as a short line: strings bare, the rest as JSON, cut at 80 characters. */
export function shortValue(v: unknown): string {
  const s = typeof v === "string" ? v : JSON.stringify(v) ?? String(v);
  return s.length > longest ? `${s.slice(0, longest - 1)}…` : s;
}

/** Bookkeeping every row carries; a reader learns nothing from its change. */
const bookkeeping = new Set(["id", "createdAt", "updatedAt"]);

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

export function changedFields(before: unknown, after: unknown): ChangedField[] {
  if (!isRecord(before) && !isRecord(after)) {
    if (JSON.stringify(before) === JSON.stringify(after)) return [];
    return [{
      field: "",
      before: before === null || before === undefined ? null : shortValue(before),
      after: after === null || after === undefined ? null : shortValue(after),
    }];
  }
  const b = isRecord(before) ? before : {};
  const a = isRecord(after) ? after : {};
  const out: ChangedField[] = [];
  // Something made: its empty fields say nothing either.
  const made = !isRecord(before);
  for (const field of new Set([...Object.keys(b), ...Object.keys(a)])) {
    const was = b[field];
    const now = a[field];
    if (JSON.stringify(was) === JSON.stringify(now) || bookkeeping.has(field)) continue;
    if (made && (now === null || now === undefined)) continue;
    out.push({
      field,
      before: field in b ? shortValue(was) : null,
      after: field in a ? shortValue(now) : null,
    });
  }
  return out;
}
