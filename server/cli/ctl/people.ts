/** `ctl people`: people, roles, places and password resets. */
import {
  arg,
  col,
  ided,
  lookupNames,
  need,
  type Noun,
  printList,
  printOne,
  str,
} from "./client.ts";

type Row = Record<string, unknown>;

const place = { org: { type: "string" }, team: { type: "string" } } as const;

export const people: Noun = {
  name: "people",
  verbs: {
    list: {
      help: `  people list [--org ORG] [--team TEAM]       List people`,
      flags: place,
      run: async (ctx) => {
        const q: Record<string, string> = {};
        if (str(ctx.values, "org")) q.org_id = str(ctx.values, "org")!;
        if (str(ctx.values, "team")) q.team_id = str(ctx.values, "team")!;
        const res = await ctx.api.get("people", { searchParams: q }).json();
        if (ctx.json) return printList(true, res, []);
        const names = await lookupNames(ctx.api, ["orgs", "teams"]);
        return printList(false, res, [
          col("id", "ID"),
          col("username", "Username"),
          col("email", "Email"),
          col("role", "Role"),
          ided("orgId", "Organisation", names),
          ided("teamId", "Team", names),
          col("state", "State"),
          col("signIn", "Sign-in"),
        ]);
      },
    },
    add: {
      help:
        `  people add USERNAME --role ROLE [--email E] [--display-name N] [--org ORG] [--team TEAM]
             [--password P]                   Add a person (a generated password is shown once)`,
      flags: {
        ...place,
        role: { type: "string" },
        email: { type: "string" },
        "display-name": { type: "string" },
        password: { type: "string" },
      },
      run: async (ctx) => {
        const v = ctx.values;
        const body: Row = {
          username: arg(ctx, 0, "people add needs a USERNAME"),
          role: need(v, "role", "people add"),
        };
        if (str(v, "email")) body.email = str(v, "email");
        if (str(v, "display-name")) body.display_name = str(v, "display-name");
        if (str(v, "org")) body.org_id = str(v, "org");
        if (str(v, "team")) body.team_id = str(v, "team");
        if (str(v, "password")) body.password = str(v, "password");
        const row = await ctx.api.post("people", { json: body }).json<Row>();
        return printOne(
          ctx.json,
          row,
          `Added ${row.username} (${row.id}) as ${row.role}` +
            (row.password ? `. Their password, shown only now:\n\n  ${row.password}\n` : ""),
        );
      },
    },
    set: {
      help: `  people set ID [--role R] [--state active|suspended] [--org ORG] [--team TEAM]
             [--display-name N]               Change a person`,
      flags: {
        ...place,
        role: { type: "string" },
        state: { type: "string" },
        "display-name": { type: "string" },
      },
      run: async (ctx) => {
        const v = ctx.values;
        const body: Row = {};
        for (
          const [flag, field] of [["role", "role"], ["state", "state"], [
            "display-name",
            "display_name",
          ]]
        ) {
          if (str(v, flag!)) body[field!] = str(v, flag!);
        }
        if (str(v, "org")) body.org_id = str(v, "org") === "none" ? null : str(v, "org");
        if (str(v, "team")) body.team_id = str(v, "team") === "none" ? null : str(v, "team");
        const id = arg(ctx, 0, "people set needs an ID");
        const row = await ctx.api.patch(`people/${encodeURIComponent(id)}`, { json: body }).json<
          Row
        >();
        return printOne(ctx.json, row, `Changed ${row.username}: ${row.role}, ${row.state}`);
      },
    },
    "reset-password": {
      help:
        `  people reset-password ID                    Give a person a new password (shown once)`,
      run: async (ctx) => {
        const id = arg(ctx, 0, "people reset-password needs an ID");
        const row = await ctx.api.post(`people/${encodeURIComponent(id)}/password`, { json: {} })
          .json<Row>();
        return printOne(ctx.json, row, `New password, shown only now:\n\n  ${row.password}\n`);
      },
    },
  },
  note: `  Roles: administrator, operator, tenant_admin, member, viewer`,
};
