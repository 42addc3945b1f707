/** `ctl orgs|teams|projects`: the tree. */
import { type Area, arg, type Ctx, need, printList, printOne, str } from "./client.ts";

type Row = Record<string, unknown>;

const rename = (kind: string) => async (ctx: Ctx) => {
  const id = arg(ctx, 0, `${kind} rename needs an ID and a NAME`);
  const name = arg(ctx, 1, `${kind} rename needs an ID and a NAME`);
  const row = await ctx.api.patch(`${kind}/${encodeURIComponent(id)}`, { json: { name } }).json<
    Row
  >();
  return printOne(ctx.json, row, `Renamed ${row.id} to '${row.name}'`);
};

export const orgsArea: Area = {
  name: "orgs",
  help: `  orgs list                                   List organisations
  orgs create NAME                            Create an organisation (administrator)
  orgs rename ID NAME                         Rename an organisation`,
  verbs: {
    list: async (ctx) => printList(ctx.json, await ctx.api.get("orgs").json(), ["id", "name"]),
    create: async (ctx) => {
      const row = await ctx.api.post("orgs", {
        json: { name: arg(ctx, 0, "orgs create needs a NAME") },
      })
        .json<Row>();
      return printOne(ctx.json, row, `Created organisation '${row.name}' (${row.id})`);
    },
    rename: rename("orgs"),
  },
};

export const teamsArea: Area = {
  name: "teams",
  help: `  teams list [--org ORG]                      List teams
  teams create --org ORG NAME                 Create a team in an organisation
  teams rename ID NAME                        Rename a team`,
  verbs: {
    list: async (ctx) => {
      const org = str(ctx.values, "org");
      const res = await ctx.api.get("teams", { searchParams: org ? { org_id: org } : {} }).json();
      return printList(ctx.json, res, ["id", "orgId", "name"]);
    },
    create: async (ctx) => {
      const row = await ctx.api.post("teams", {
        json: {
          org_id: need(ctx.values, "org", "teams create"),
          name: arg(ctx, 0, "teams create needs a NAME"),
        },
      }).json<Row>();
      return printOne(ctx.json, row, `Created team '${row.name}' (${row.id})`);
    },
    rename: rename("teams"),
  },
};

export const projectsArea: Area = {
  name: "projects",
  help: `  projects list [--team TEAM]                 List projects
  projects create --team TEAM NAME            Create a project in a team
  projects rename ID NAME                     Rename a project`,
  verbs: {
    list: async (ctx) => {
      const team = str(ctx.values, "team");
      const res = await ctx.api.get("projects", { searchParams: team ? { team_id: team } : {} })
        .json();
      return printList(ctx.json, res, ["id", "teamId", "name"]);
    },
    create: async (ctx) => {
      const row = await ctx.api.post("projects", {
        json: {
          team_id: need(ctx.values, "team", "projects create"),
          name: arg(ctx, 0, "projects create needs a NAME"),
        },
      }).json<Row>();
      return printOne(ctx.json, row, `Created project '${row.name}' (${row.id})`);
    },
    rename: rename("projects"),
  },
};
