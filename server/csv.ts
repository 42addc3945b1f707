/**
 * The one CSV writer every export uses (`ctl usage --format csv`, the portal's usage.csv), per
 * RFC 4180: records end in CRLF, a field holding a comma, a quote, CR or LF is quoted and its
 * quotes doubled. A text field that a spreadsheet would run as a formula (it starts with = + - @,
 * a tab or CR) gets a leading apostrophe first; numbers (and text that is just a
 * number, like a negative amount) are written as they are.
 */
export type CsvField = string | number | null | undefined;

export function csvField(v: CsvField): string {
  if (v === null || v === undefined) return "";
  let s = String(v);
  if (typeof v === "string" && /^[=+\-@\t\r]/.test(s) && !/^-?\d+(\.\d+)?$/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** The header and the rows as one CSV text, every record (the last too) ending in CRLF. */
export function csv(rows: readonly (readonly CsvField[])[]): string {
  return rows.map((r) => r.map(csvField).join(",") + "\r\n").join("");
}
