/** `ctl config`: the cluster's live settings: get, set, or edit them all as YAML. */
import { parse as parseYaml } from "yaml";
import { UsageError } from "../../../core/command.ts";
import type { SettingView } from "../../settings/cluster_settings.ts";
import type { Ctx, Noun } from "./client.ts";
import { cellText, renderTable } from "../table.ts";

/** A setting as `GET /settings` lists it; the CLI does not show its flag and env names. */
type SettingJson = Omit<SettingView, "env" | "flag">;

interface SetJson {
  applied: string[];
  restart: string[];
  overridden: string[];
}

async function get(ctx: Ctx): Promise<number> {
  const key = ctx.args[0];
  const { data } = await ctx.api.get("settings").json<{ data: SettingJson[] }>();
  const rows = key ? data.filter((s) => s.key === key) : data;
  if (key && rows.length === 0) throw new UsageError(`unknown setting ${key}`);
  if (ctx.json) console.log(JSON.stringify(key ? rows[0] : rows, null, 2));
  else if (key) {
    console.log(
      typeof rows[0]!.value === "string" ? rows[0]!.value : JSON.stringify(rows[0]!.value),
    );
  } else {
    console.log(renderTable(
      ["Setting", "Value", "Applies", "Set by"],
      rows.map((s) => [
        s.key,
        s.value === "" ? '""' : cellText(s.value),
        s.live ? "live" : "at restart",
        s.source,
      ]),
    ));
  }
  return 0;
}

async function set(ctx: Ctx): Promise<number> {
  const rest = ctx.args;
  if (rest.length === 0 || rest.length % 2 !== 0) {
    throw new UsageError("config set needs KEY VALUE pairs");
  }
  const changes: Record<string, string> = {};
  for (let i = 0; i < rest.length; i += 2) changes[rest[i]!] = rest[i + 1]!;
  return report(await ctx.api.put("settings", { json: changes }).json<SetJson>(), ctx.json);
}

async function edit(ctx: Ctx): Promise<number> {
  const { data } = await ctx.api.get("settings").json<{ data: SettingJson[] }>();
  const file = await Deno.makeTempFile({ prefix: "llmgw-settings-", suffix: ".yaml" });
  try {
    await Deno.writeTextFile(file, settingsYaml(data));
    const editor = Deno.env.get("VISUAL") || Deno.env.get("EDITOR") || "vi";
    const run = await new Deno.Command("sh", {
      args: ["-c", `${editor} "$1"`, "sh", file],
      stdin: "inherit",
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    if (!run.success) throw new UsageError(`the editor (${editor}) failed; nothing changed`);
    let doc: unknown;
    try {
      doc = parseYaml(await Deno.readTextFile(file));
    } catch (e) {
      throw new UsageError(
        `not valid YAML, nothing changed: ${(e as Error).message.split("\n")[0]}`,
      );
    }
    const edited = flatten(doc);
    const changes: Record<string, unknown> = {};
    for (const s of data) {
      if (s.key in edited && JSON.stringify(edited[s.key]) !== JSON.stringify(s.value)) {
        changes[s.key] = edited[s.key];
      }
    }
    for (const k of Object.keys(edited)) {
      if (!data.some((s) => s.key === k)) {
        throw new UsageError(`unknown setting ${k}; nothing changed`);
      }
    }
    if (Object.keys(changes).length === 0) {
      console.log("No changes.");
      return 0;
    }
    return report(await ctx.api.put("settings", { json: changes }).json<SetJson>(), ctx.json);
  } finally {
    await Deno.remove(file).catch(() => {});
  }
}

function report(r: SetJson, json: boolean): number {
  if (json) console.log(JSON.stringify(r, null, 2));
  else {
    if (r.applied.length) console.log(`Applied now: ${r.applied.join(", ")}`);
    if (r.restart.length) console.log(`Stored; applies after a restart: ${r.restart.join(", ")}`);
    if (r.overridden.length) {
      console.log(
        `Stored, but this control plane was started with a flag or env for: ${
          r.overridden.join(", ")
        }`,
      );
    }
  }
  return 0;
}

/** Every setting as YAML, grouped by section, each with its meaning and whether it is live. */
function settingsYaml(data: SettingJson[]): string {
  const sections = new Map<string, string[]>();
  for (const s of data) {
    const parts = s.key.split(".");
    const head = parts.length > 1 ? parts[0]! : "";
    let lines = sections.get(head);
    if (!lines) sections.set(head, lines = head ? [`${head}:`] : []);
    const indent = head ? "  " : "";
    lines.push(`${indent}# ${s.description} [${s.live ? "live" : "restart"}]`);
    lines.push(`${indent}${parts.slice(head ? 1 : 0).join(".")}: ${JSON.stringify(s.value)}`);
  }
  return "# The cluster's settings. Change values and save; [live] ones apply at once.\n" +
    [...sections.values()].flat().join("\n") + "\n";
}

function flatten(doc: unknown, prefix = "", out: Record<string, unknown> = {}) {
  if (doc === null || doc === undefined) return out;
  if (typeof doc !== "object" || Array.isArray(doc)) {
    throw new UsageError(`${prefix || "the top level"} must be a mapping; nothing changed`);
  }
  for (const [k, v] of Object.entries(doc)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (typeof v === "object" && v !== null && !Array.isArray(v)) flatten(v, key, out);
    else out[key] = v;
  }
  return out;
}

export const config: Noun = {
  name: "config",
  verbs: {
    get: {
      help:
        `  config get [KEY]                            The cluster's settings (value, live or restart, source)`,
      run: get,
    },
    set: {
      help:
        `  config set KEY VALUE [KEY VALUE …]          Change settings; live ones apply at once`,
      run: set,
    },
    edit: {
      help:
        `  config edit                                 Edit every setting as YAML in $EDITOR, then apply the changes`,
      run: edit,
    },
  },
};
