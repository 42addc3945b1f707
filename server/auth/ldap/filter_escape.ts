/**
 * RFC 4515 §3: a value put into a search filter has `*`, `(`, `)`, `\` and NUL written as `\XX`,
 * so what a person types at the sign-in form is always one value, never filter syntax (`*` would
 * match anyone, `)(` would add terms of its own). Binary values (objectGUID) are written byte by
 * byte.
 */
const specials = new Set(["*", "(", ")", "\\", "\u0000"]);

export function escapeFilterValue(value: string): string {
  let out = "";
  for (const c of value) {
    out += specials.has(c) ? `\\${c.charCodeAt(0).toString(16).padStart(2, "0")}` : c;
  }
  return out;
}

export function escapeFilterBytes(bytes: Uint8Array): string {
  return [...bytes].map((b) => `\\${b.toString(16).padStart(2, "0")}`).join("");
}

/**
 * Active Directory's objectGUID in its usual written form: the first three groups are stored
 * little-endian, the last two as they are.
 */
export function guidFromBytes(b: Uint8Array): string {
  const h = [...b].map((x) => x.toString(16).padStart(2, "0"));
  const order = [3, 2, 1, 0, -1, 5, 4, -1, 7, 6, -1, 8, 9, -1, 10, 11, 12, 13, 14, 15];
  return order.map((i) => (i < 0 ? "-" : h[i])).join("");
}
