/** `ctl prices`: model prices. */
import { UsageError } from "../../../core/command.ts";
import { cellText } from "../table.ts";
import { arg, col, type Noun, printList, printOne, str } from "./client.ts";

export const prices: Noun = {
  name: "prices",
  verbs: {
    list: {
      help:
        `  prices list                                 Model prices (micro-units per 1,000 tokens)`,
      run: async (ctx) => {
        const res = await ctx.api.get("prices").json<
          { default: unknown; data: { model: string; price: Record<string, number> }[] }
        >();
        if (ctx.json) return printOne(true, res, "");
        console.log(`Default: ${cellText(res.default)}`);
        return printList(false, { data: res.data.map((r) => ({ model: r.model, ...r.price })) }, [
          col("model", "Model"),
          col("promptPer1k", "Prompt per 1k"),
          col("completionPer1k", "Completion per 1k"),
          col("cachedPer1k", "Cached per 1k"),
          col("cacheHitPer1k", "Cache hit per 1k"),
        ]);
      },
    },
    set: {
      help: `  prices set MODEL --prompt N --completion N [--cached N] [--cache-hit N]`,
      flags: {
        prompt: { type: "string" },
        completion: { type: "string" },
        cached: { type: "string" },
        "cache-hit": { type: "string" },
      },
      run: async (ctx) => {
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
        if (str(ctx.values, "cache-hit")) json.cache_hit_per_1k = n("cache-hit");
        const res = await ctx.api.put(`prices/${encodeURIComponent(model)}`, { json }).json();
        return printOne(ctx.json, res, `Set the price of ${model}`);
      },
    },
    clear: {
      help: `  prices clear MODEL                          Back to the default price`,
      run: async (ctx) => {
        const model = arg(ctx, 0, "prices clear needs a MODEL");
        const res = await ctx.api.delete(`prices/${encodeURIComponent(model)}`).json();
        return printOne(ctx.json, res, `${model} is back to the default price`);
      },
    },
  },
};
