/** `ctl audit`: the audit trail. */
import { type Noun, printList, since, str } from "./client.ts";

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
        const res = await ctx.api.get("audit", { searchParams: q }).json<
          { data: Record<string, unknown>[] }
        >();
        if (!ctx.json) {
          for (const r of res.data) r.at = new Date(r.at as number).toISOString();
        }
        return printList(ctx.json, res, [
          "at",
          "actorName",
          "action",
          "targetKind",
          "targetId",
          "before",
          "after",
        ]);
      },
    },
  },
};
