/** Model prices: listed, set per model, or returned to the default; staff only, audited. */
import { z } from "zod";
import type { AdminDeps } from "./admin_deps.ts";
import { AppError } from "../../../core/errors.ts";
import type { Price } from "../../accounting/price.ts";
import { type Actor, canWrite, requireRead } from "../../tenancy/access.ts";
import type { AdminRegistry } from "./registry.ts";

const micros = z.number().int().min(0);
const priceBody = z.strictObject({
  prompt_per_1k: micros,
  completion_per_1k: micros,
  cached_per_1k: micros.optional(),
  /** Each token of an answer the answer cache gave back; 0 when not given. */
  cache_hit_per_1k: micros.optional(),
});

export function priceRoutes(r: AdminRegistry, deps: Pick<AdminDeps, "people">): void {
  const staff = { orgId: null, teamId: null };
  /** Sets a model's price, or with null returns it to the default; staff only, audited. */
  const changePrice = async (actor: Actor, path: string, model: string, price: Price | null) => {
    requireRead(actor, "staff", staff, path);
    if (!canWrite(actor, "staff", staff)) throw new AppError("forbidden");
    const before = deps.people.prices.list().find((x) => x.model === model)?.price ?? null;
    await deps.people.prices.set(model, price);
    await deps.people.audit.record(
      actor,
      price ? "price.set" : "price.clear",
      { kind: "model", id: model, orgId: null },
      before,
      price,
    );
  };
  r.add({
    method: "get",
    path: "/prices",
    tag: "prices",
    summary: "Model prices and the default. Kept and sent in micro-units of `currency` per " +
      "1,000 tokens (promptPer1k 150 = 0.15 of the currency per 1M tokens): the portal, ctl and " +
      "the CSV exports show every price as `currency` per 1M tokens",
    access: "administrator, operator",
  }, (c, { actor }) => {
    requireRead(actor, "staff", staff, c.req.path);
    const p = deps.people.prices;
    return c.json({ currency: p.currency, default: p.defaultPrice, data: p.list() });
  });
  r.add({
    method: "put",
    path: "/prices/:model",
    tag: "prices",
    summary: "Set a model's price (micro-units per 1,000 tokens, as GET /prices lists them)",
    body: priceBody,
    access: "administrator, operator",
  }, async (c, { actor, body }) => {
    const model = c.req.param("model")!;
    const price = {
      promptPer1k: body.prompt_per_1k,
      completionPer1k: body.completion_per_1k,
      cachedPer1k: body.cached_per_1k ?? 0,
      cacheHitPer1k: body.cache_hit_per_1k ?? 0,
    };
    await changePrice(actor, c.req.path, model, price);
    return c.json({ model, price });
  });
  r.add({
    method: "delete",
    path: "/prices/:model",
    tag: "prices",
    summary: "Return a model to the default price",
    access: "administrator, operator",
  }, async (c, { actor }) => {
    const model = c.req.param("model")!;
    await changePrice(actor, c.req.path, model, null);
    return c.json({ model, price: deps.people.prices.defaultPrice });
  });
}
