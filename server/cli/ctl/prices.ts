/**
 * `ctl prices`: model prices, shown and set as the portal shows them: the cluster's currency per
 * 1M tokens (server/accounting/money.ts). The older flags, micro-units per 1,000 tokens as the
 * admin API keeps them, are still taken.
 */
import { UsageError } from "../../../core/command.ts";
import { formatPrice, microsPer1kOf, priceDecimal, priceUnit } from "../../accounting/money.ts";
import { arg, type Column, type Ctx, type Noun, printList, printOne, str } from "./client.ts";

type PriceJson = Record<string, number>;

const fields = [
  ["prompt", "prompt_per_1k", "promptPer1k", "Prompt"],
  ["completion", "completion_per_1k", "completionPer1k", "Completion"],
  ["cached", "cached_per_1k", "cachedPer1k", "Cached prompt"],
  ["cache-hit", "cache_hit_per_1k", "cacheHitPer1k", "Cache hit"],
] as const;

/** A field's price from `--F-per-1m` (the currency per 1M tokens) or the older `--F` (micros). */
function priceFlag(ctx: Ctx, flag: string): number | undefined {
  const perMillion = str(ctx.values, `${flag}-per-1m`);
  const micros = str(ctx.values, flag);
  if (perMillion !== undefined && micros !== undefined) {
    throw new UsageError(`prices set: give --${flag}-per-1m or --${flag}, not both`);
  }
  if (perMillion !== undefined) {
    const v = microsPer1kOf(perMillion);
    if (v === undefined) {
      throw new UsageError(
        `--${flag}-per-1m is the currency ${priceUnit}, at most three decimals (e.g. 0.15)`,
      );
    }
    return v;
  }
  if (micros === undefined) return undefined;
  const v = Number(micros);
  if (!Number.isInteger(v) || v < 0) {
    throw new UsageError(`--${flag} is micro-units per 1,000 tokens, a whole number`);
  }
  return v;
}

export const prices: Noun = {
  name: "prices",
  verbs: {
    list: {
      help: `  prices list                                 Model prices, the currency ${priceUnit}`,
      run: async (ctx) => {
        const res = await ctx.api.get("prices").json<
          { currency?: string; default: PriceJson; data: { model: string; price: PriceJson }[] }
        >();
        if (ctx.json) return printOne(true, res, "");
        const currency = res.currency ?? "USD";
        const show = (v: unknown) => formatPrice(Number(v ?? 0), currency);
        const cols: Column[] = [
          { key: "model", head: "Model" },
          ...fields.map(([, , key, head]) => ({ key, head: `${head} ${priceUnit}`, show })),
        ];
        const d = res.default;
        console.log(
          `Default ${priceUnit}: prompt ${show(d.promptPer1k)}, completion ${
            show(d.completionPer1k)
          }, cached prompt ${show(d.cachedPer1k)}, cache hit ${show(d.cacheHitPer1k)}`,
        );
        return printList(
          false,
          { data: res.data.map((r) => ({ model: r.model, ...r.price })) },
          cols,
        );
      },
    },
    set: {
      help:
        `  prices set MODEL --prompt-per-1m P --completion-per-1m P [--cached-per-1m P] [--cache-hit-per-1m P]
                                              Set a price, the currency ${priceUnit} (0.15);
                                              --prompt N, --completion N, --cached N and --cache-hit N,
                                              micro-units per 1,000 tokens, are still taken`,
      flags: Object.fromEntries(
        fields.flatMap(([f]) => [[f, { type: "string" }], [`${f}-per-1m`, { type: "string" }]]),
      ),
      run: async (ctx) => {
        const model = arg(ctx, 0, "prices set needs a MODEL");
        const json: Record<string, number> = {};
        for (const [flag, body] of fields) {
          const v = priceFlag(ctx, flag);
          if (v !== undefined) json[body] = v;
        }
        for (const need of ["prompt", "completion"] as const) {
          if (json[`${need}_per_1k`] === undefined) {
            throw new UsageError(`prices set needs --${need}-per-1m (the currency ${priceUnit})`);
          }
        }
        const res = await ctx.api.put(`prices/${encodeURIComponent(model)}`, { json }).json<
          { price: PriceJson }
        >();
        return printOne(
          ctx.json,
          res,
          `Set the price of ${model}: prompt ${priceDecimal(json.prompt_per_1k!)}, completion ${
            priceDecimal(json.completion_per_1k!)
          } ${priceUnit} (in the cluster's currency)`,
        );
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
