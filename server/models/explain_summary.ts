/** One line saying why a replica fits nowhere, naming each node's constraint (for notes and logs). */
import type { PlaceResult } from "./placement.ts";

export function explainSummary(res: PlaceResult): string {
  if (res.ok) return `fits on ${res.node}`;
  if (!res.considered.length) return res.reason;
  const each = res.considered.filter((v) => !v.ok).map((v) =>
    `${v.node}: (${v.constraint}) ${v.reason}`
  );
  return `fits nowhere — ${each.join("; ")}`;
}
