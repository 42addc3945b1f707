/** `ctl keys`: API keys. */
import {
  arg,
  at,
  col,
  duration,
  ided,
  lookupNames,
  need,
  type Noun,
  printList,
  printOne,
  str,
} from "./client.ts";

type Row = Record<string, unknown>;

export const keys: Noun = {
  name: "keys",
  verbs: {
    create: {
      help: `  keys create --name NAME [--project P] [--person ID | --service]
              [--expires-at MS | --expires-in 30d]   Make an API key (shown once)`,
      flags: {
        name: { type: "string" },
        project: { type: "string" },
        person: { type: "string" },
        service: { type: "boolean" },
        "expires-at": { type: "string" },
        "expires-in": { type: "string" },
      },
      run: async (ctx) => {
        const v = ctx.values;
        const body: Row = { name: need(v, "name", "keys create") };
        if (str(v, "project")) body.project_id = str(v, "project");
        if (str(v, "person")) body.person_id = str(v, "person");
        if (v.service === true) body.service = true;
        if (str(v, "expires-at")) body.expires_at = Number(str(v, "expires-at"));
        if (str(v, "expires-in")) {
          body.expires_at = Date.now() + duration(str(v, "expires-in")!, "expires-in");
        }
        const key = await ctx.api.post("keys", { json: body }).json<Row>();
        return printOne(
          ctx.json,
          key,
          `Created key '${key.name}' (${key.id}). It is shown only now:\n\n  ${key.key}\n`,
        );
      },
    },
    list: {
      help: `  keys list [--project P] [--person ID]       List API keys (prefixes only)`,
      flags: { project: { type: "string" }, person: { type: "string" } },
      run: async (ctx) => {
        const q: Record<string, string> = {};
        if (str(ctx.values, "project")) q.project_id = str(ctx.values, "project")!;
        if (str(ctx.values, "person")) q.person_id = str(ctx.values, "person")!;
        const res = await ctx.api.get("keys", { searchParams: q }).json();
        if (ctx.json) return printList(true, res, []);
        const names = await lookupNames(ctx.api, ["projects", "people"]);
        return printList(false, res, [
          col("id", "ID"),
          col("name", "Name"),
          col("prefix", "Prefix"),
          ided("projectId", "Project", names),
          ided("userId", "Person", names),
          at("createdAt", "Created"),
          at("expiresAt", "Expires"),
          at("lastUsedAt", "Last used"),
          at("revokedAt", "Revoked"),
        ]);
      },
    },
    revoke: {
      help: `  keys revoke ID                              Revoke a key at once`,
      run: async (ctx) => {
        const id = arg(ctx, 0, "keys revoke needs the key's ID");
        const key = await ctx.api.delete(`keys/${encodeURIComponent(id)}`).json<Row>();
        return printOne(ctx.json, key, `Revoked key '${key.name}' (${key.id})`);
      },
    },
  },
};
