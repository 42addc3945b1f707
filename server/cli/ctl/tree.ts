/** `ctl orgs|teams|projects`: the tree. */
import {
  arg,
  col,
  type Ctx,
  ided,
  lookupNames,
  need,
  type Noun,
  printList,
  printOne,
  str,
  type Verb,
} from "./client.ts";

type Row = Record<string, unknown>;

const rename = (kind: string, help: string): Verb => ({
  help,
  run: async (ctx: Ctx) => {
    const id = arg(ctx, 0, `${kind} rename needs an ID and a NAME`);
    const name = arg(ctx, 1, `${kind} rename needs an ID and a NAME`);
    const row = await ctx.api.patch(`${kind}/${encodeURIComponent(id)}`, { json: { name } })
      .json<Row>();
    return printOne(ctx.json, row, `Renamed ${row.id} to '${row.name}'`);
  },
});

export const orgs: Noun = {
  name: "orgs",
  verbs: {
    list: {
      help: `  orgs list                                   List organisations`,
      run: async (ctx) =>
        printList(ctx.json, await ctx.api.get("orgs").json(), [
          col("id", "ID"),
          col("name", "Name"),
        ]),
    },
    create: {
      help: `  orgs create NAME                            Create an organisation (administrator)`,
      run: async (ctx) => {
        const row = await ctx.api.post("orgs", {
          json: { name: arg(ctx, 0, "orgs create needs a NAME") },
        })
          .json<Row>();
        return printOne(ctx.json, row, `Created organisation '${row.name}' (${row.id})`);
      },
    },
    rename: rename("orgs", `  orgs rename ID NAME                         Rename an organisation`),
  },
};

/** A level under another (teams under orgs, projects under teams): the same three verbs. */
const childNoun = (
  name: string,
  noun: string,
  parent: "org" | "team",
  help: { list: string; create: string; rename: string },
): Noun => ({
  name,
  verbs: {
    list: {
      help: help.list,
      flags: { [parent]: { type: "string" } },
      run: async (ctx) => {
        const id = str(ctx.values, parent);
        const res = await ctx.api.get(name, { searchParams: id ? { [`${parent}_id`]: id } : {} })
          .json();
        if (ctx.json) return printList(true, res, []);
        const names = await lookupNames(ctx.api, [parent === "org" ? "orgs" : "teams"]);
        return printList(false, res, [
          col("id", "ID"),
          ided(`${parent}Id`, parent === "org" ? "Organisation" : "Team", names),
          col("name", "Name"),
        ]);
      },
    },
    create: {
      help: help.create,
      flags: { [parent]: { type: "string" } },
      run: async (ctx) => {
        const row = await ctx.api.post(name, {
          json: {
            [`${parent}_id`]: need(ctx.values, parent, `${name} create`),
            name: arg(ctx, 0, `${name} create needs a NAME`),
          },
        }).json<Row>();
        return printOne(ctx.json, row, `Created ${noun} '${row.name}' (${row.id})`);
      },
    },
    rename: rename(name, help.rename),
  },
});

export const teams: Noun = childNoun("teams", "team", "org", {
  list: `  teams list [--org ORG]                      List teams`,
  create: `  teams create --org ORG NAME                 Create a team in an organisation`,
  rename: `  teams rename ID NAME                        Rename a team`,
});

export const projects: Noun = childNoun("projects", "project", "team", {
  list: `  projects list [--team TEAM]                 List projects`,
  create: `  projects create --team TEAM NAME            Create a project in a team`,
  rename: `  projects rename ID NAME                     Rename a project`,
});
