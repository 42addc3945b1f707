/** `ctl audit`, `ctl usage`, `ctl models`, `ctl prices`. */
import { UsageError } from "../../../core/command.ts";
import { type Area, arg, printList, printOne, since, str } from "./client.ts";

export const auditArea: Area = {
  name: "audit",
  help: `  audit [list] [--since 1h|DATE] [--actor WHO] [--target ID] [--limit N]
                                              The audit trail, newest first`,
  verbs: {
    list: async (ctx) => {
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
};

export const usageArea: Area = {
  name: "usage",
  help: `  usage list [--limit N]                      Recent usage rows`,
  verbs: {
    list: async (ctx) => {
      const limit = str(ctx.values, "limit") ?? "20";
      return printList(ctx.json, await ctx.api.get("usage", { searchParams: { limit } }).json(), [
        "at",
        "keyId",
        "model",
        "promptTokens",
        "completionTokens",
        "costMicros",
        "status",
        "latencyMs",
      ]);
    },
  },
};

export const modelsArea: Area = {
  name: "models",
  help:
    `  models list                                 List models, their replicas and each one's load`,
  verbs: {
    list: async (ctx) => {
      const res = await ctx.api.get("models").json<{ data: Record<string, unknown>[] }>();
      if (ctx.json) return printList(true, res, []);
      const data = res.data.map((m) => ({ ...m, replicas: replicaSummary(m.replicas) }));
      return printList(false, { data }, ["name", "engine", "replicas", "queued", "description"]);
    },
  },
};

/** One line per replica: state, in flight of slots, and the engine's load; unread load is "?". */
export function replicaSummary(replicas: unknown): string {
  if (!Array.isArray(replicas) || replicas.length === 0) return "-";
  return replicas.map((r) => {
    const load = r.load ?? {};
    const kv = load.known && typeof load.kvCacheUsage === "number"
      ? `kv ${Math.round(load.kvCacheUsage * 100)}%`
      : "kv ?";
    const waiting = load.known && typeof load.waiting === "number"
      ? `waiting ${load.waiting}`
      : "waiting ?";
    const breaker = r.breaker && r.breaker !== "closed" ? ` breaker ${r.breaker}` : "";
    return `${r.id} ${r.state} ${r.inFlight}/${r.slots ?? "∞"} ${kv} ${waiting}${breaker}`;
  }).join("; ");
}

export const pricesArea: Area = {
  name: "prices",
  help: `  prices list                                 Model prices (micro-units per 1,000 tokens)
  prices set MODEL --prompt N --completion N [--cached N]
  prices clear MODEL                          Back to the default price`,
  verbs: {
    list: async (ctx) => {
      const res = await ctx.api.get("prices").json<
        { default: unknown; data: { model: string; price: Record<string, number> }[] }
      >();
      if (ctx.json) return printOne(true, res, "");
      console.log(`default: ${JSON.stringify(res.default)}`);
      return printList(false, { data: res.data.map((r) => ({ model: r.model, ...r.price })) }, [
        "model",
        "promptPer1k",
        "completionPer1k",
        "cachedPer1k",
      ]);
    },
    set: async (ctx) => {
      const model = arg(ctx, 0, "prices set needs a MODEL");
      const n = (f: string) => {
        const v = Number(str(ctx.values, f));
        if (!Number.isInteger(v) || v < 0) {
          throw new UsageError(`prices set needs --${f} as a whole number`);
        }
        return v;
      };
      const json: Record<string, number> = {
        prompt_per_1k: n("prompt"),
        completion_per_1k: n("completion"),
      };
      if (str(ctx.values, "cached")) json.cached_per_1k = n("cached");
      const res = await ctx.api.put(`prices/${encodeURIComponent(model)}`, { json }).json();
      return printOne(ctx.json, res, `Set the price of ${model}`);
    },
    clear: async (ctx) => {
      const model = arg(ctx, 0, "prices clear needs a MODEL");
      const res = await ctx.api.delete(`prices/${encodeURIComponent(model)}`).json();
      return printOne(ctx.json, res, `${model} is back to the default price`);
    },
  },
};
