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

/** A level under another (teams under orgs, projects under teams): the same three verbs. */
const childArea = (
  name: string,
  noun: string,
  parent: "org" | "team",
  help: string,
): Area => ({
  name,
  help,
  verbs: {
    list: async (ctx) => {
      const id = str(ctx.values, parent);
      const res = await ctx.api.get(name, { searchParams: id ? { [`${parent}_id`]: id } : {} })
        .json();
      return printList(ctx.json, res, ["id", `${parent}Id`, "name"]);
    },
    create: async (ctx) => {
      const row = await ctx.api.post(name, {
        json: {
          [`${parent}_id`]: need(ctx.values, parent, `${name} create`),
          name: arg(ctx, 0, `${name} create needs a NAME`),
        },
      }).json<Row>();
      return printOne(ctx.json, row, `Created ${noun} '${row.name}' (${row.id})`);
    },
    rename: rename(name),
  },
});

export const teamsArea: Area = childArea(
  "teams",
  "team",
  "org",
  `  teams list [--org ORG]                      List teams
  teams create --org ORG NAME                 Create a team in an organisation
  teams rename ID NAME                        Rename a team`,
);

export const projectsArea: Area = childArea(
  "projects",
  "project",
  "team",
  `  projects list [--team TEAM]                 List projects
  projects create --team TEAM NAME            Create a project in a team
  projects rename ID NAME                     Rename a project`,
);
