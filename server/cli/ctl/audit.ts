/** `ctl audit`: the audit trail. */
import { changes, renderTable, when } from "../table.ts";
import { type Noun, printList, since, str } from "./client.ts";

interface AuditJson {
  at: number;
  actorName: string;
  action: string;
  targetKind: string;
  targetId: string;
  before: unknown;
  after: unknown;
}

/** The name a target had (its own `name` or `username`), from after the change or before it. */
function targetName(r: AuditJson): string | undefined {
  for (const side of [r.after, r.before]) {
    if (side && typeof side === "object") {
      const o = side as Record<string, unknown>;
      const n = o.name ?? o.username;
      if (typeof n === "string" && n) return n;
    }
  }
  return undefined;
}

/**
 * One row per entry (when, who, what, on which target by name and id), and under it the fields
 * that changed, each as before → after: a person reads what happened without reading JSON.
 */
export function auditText(rows: readonly AuditJson[], now = Date.now()): string {
  if (rows.length === 0) return "No audit entries.";
  const table = renderTable(
    ["When", "Who", "Action", "Target"],
    rows.map((r) => {
      const name = targetName(r);
      const id = r.targetId && r.targetId !== r.targetKind ? r.targetId : "";
      const target = [r.targetKind, name, id && (name ? `(${id})` : id)].filter(Boolean);
      return [when(r.at, now), r.actorName, r.action, target.join(" ")];
    }),
  ).split("\n");
  const out = [table[0]!];
  rows.forEach((r, i) => {
    out.push(table[i + 1]!);
    for (const c of changes(r.before, r.after)) out.push(`    ${c}`);
  });
  return out.join("\n");
}

export const audit: Noun = {
  name: "audit",
  verbs: {
    list: {
      help: `  audit [list] [--since 1h|DATE] [--actor WHO] [--target ID] [--limit N]
                                              The audit trail, newest first`,
      flags: {
        since: { type: "string" },
        actor: { type: "string" },
        target: { type: "string" },
        limit: { type: "string" },
      },
      run: async (ctx) => {
        const q: Record<string, string> = {};
        const s = str(ctx.values, "since");
        if (s) q.since = String(since(s));
        for (const f of ["actor", "target", "limit"]) {
          if (str(ctx.values, f)) q[f] = str(ctx.values, f)!;
        }
        const res = await ctx.api.get("audit", { searchParams: q }).json<{ data: AuditJson[] }>();
        if (ctx.json) return printList(true, res, []);
        console.log(auditText(res.data));
        return 0;
      },
    },
  },
};
