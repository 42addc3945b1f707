/**
 * `ctl scim token`: the bearer tokens identity providers (Entra ID, Okta) provision with at
 * /scim/v2. A token is shown once, when made; the control plane keeps only its hash.
 */
import { UsageError } from "../../../core/command.ts";
import { arg, at, col, type Noun, printList, printOne } from "./client.ts";

export const scim: Noun = {
  name: "scim",
  verbs: {
    token: {
      help:
        `  scim token create NAME | list | revoke ID  SCIM provisioning tokens (shown once, kept hashed)`,
      run: async (ctx) => {
        const what = arg(ctx, 0, "scim token needs create NAME, list or revoke ID");
        if (what === "list") {
          return printList(ctx.json, await ctx.api.get("scim/tokens").json(), [
            col("id", "Id"),
            col("name", "Name"),
            at("created_at", "Made"),
            at("revoked_at", "Revoked"),
          ]);
        }
        if (what === "create") {
          const name = arg(
            { ...ctx, args: ctx.args.slice(1) },
            0,
            "scim token create needs a NAME",
          );
          const res = await ctx.api.post("scim/tokens", { json: { name } }).json<
            { id: string; name: string; token: string }
          >();
          return printOne(
            ctx.json,
            res,
            `SCIM token ${res.name} (${res.id}), shown once; give it to the identity provider:\n${res.token}`,
          );
        }
        if (what === "revoke") {
          const id = arg({ ...ctx, args: ctx.args.slice(1) }, 0, "scim token revoke needs an ID");
          const res = await ctx.api.delete(`scim/tokens/${encodeURIComponent(id)}`).json();
          return printOne(ctx.json, res, `Revoked SCIM token ${id}`);
        }
        throw new UsageError(`scim token: unknown '${what}' (create NAME, list, revoke ID)`);
      },
    },
  },
};
