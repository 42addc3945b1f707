/**
 * `ctl mcp`: company MCP servers behind /mcp. Credentials are given as files on the control
 * plane (`--bearer-file F`, `--header-file H=F`, or `--secret-file H=F` as the original system
 * spelled it); the file's path is sent, never its content, and it is read on every call.
 * The server's address is the word after its name: `--url` is already ctl's own, the control
 * plane's address.
 */
import { UsageError } from "../../../core/command.ts";
import { arg, col, type Ctx, type Noun, printList, printOne, str, strs } from "./client.ts";

interface ServerView {
  name: string;
  url: string;
  headers: string[];
  rate: number | null;
  tools: string[] | null;
  auth: "headers" | "oauth";
  note: string | null;
}

/** The header files given, each made absolute: the control plane reads them, not this shell. */
export function headerFiles(v: Ctx["values"]): Record<string, string> {
  const out: Record<string, string> = {};
  const bearer = str(v, "bearer-file");
  if (bearer !== undefined) out.Authorization = absolute(bearer);
  for (const pair of [...strs(v, "header-file"), ...strs(v, "secret-file")]) {
    const eq = pair.indexOf("=");
    if (eq <= 0 || eq === pair.length - 1) {
      throw new UsageError(`--header-file takes HEADER=FILE, not '${pair}'`);
    }
    const header = pair.slice(0, eq);
    if (bearer !== undefined && header.toLowerCase() === "authorization") {
      throw new UsageError("give the Authorization header once: --bearer-file or --header-file");
    }
    out[header] = absolute(pair.slice(eq + 1));
  }
  return out;
}

function absolute(path: string): string {
  return path.startsWith("/") ? path : `${Deno.cwd()}/${path}`;
}

function body(ctx: Ctx, verb: string): Record<string, unknown> {
  const url = ctx.args[1];
  if (!url) throw new UsageError(`mcp ${verb} needs the server's URL after its NAME`);
  const out: Record<string, unknown> = { url, headers: headerFiles(ctx.values) };
  const rate = str(ctx.values, "rate");
  if (rate !== undefined) {
    const n = Number(rate);
    if (!Number.isInteger(n) || n < 1) throw new UsageError("--rate must be a whole number ≥ 1");
    out.rate = n;
  }
  const auth = str(ctx.values, "auth");
  if (auth !== undefined) {
    if (auth !== "oauth" && auth !== "headers") {
      throw new UsageError("--auth is oauth (each person's own account) or headers (shared)");
    }
    out.auth = auth;
  }
  const tools = str(ctx.values, "tools");
  if (tools !== undefined) out.tools = tools.split(",").map((t) => t.trim()).filter(Boolean);
  return out;
}

function describe(s: ServerView): string {
  const lines = [
    `${s.name}: ${s.url}`,
    `  acts as: ${
      s.auth === "oauth"
        ? "each person's own account (each authorises once in the portal, under Tools)"
        : s.headers.length > 0
        ? "one shared service account"
        : "no credential"
    }`,
    `  headers sent: ${s.headers.join(", ") || "none"}`,
    `  rate: ${s.rate === null ? "unlimited" : `${s.rate}/min per caller`}`,
    `  tools offered: ${
      s.tools?.join(", ") ?? "all"
    }  (granted with ctl limits set --tools '${s.name}.*')`,
  ];
  if (s.note) lines.push(`  note: ${s.note}`);
  return lines.join("\n");
}

const serverFlags = {
  "bearer-file": { type: "string" as const },
  "header-file": { type: "string" as const, multiple: true },
  "secret-file": { type: "string" as const, multiple: true },
  rate: { type: "string" as const },
  tools: { type: "string" as const },
  auth: { type: "string" as const },
};

export const mcp: Noun = {
  name: "mcp",
  verbs: {
    list: {
      help: `  mcp list                                    Company MCP servers behind /mcp`,
      run: async (ctx) => {
        const res = await ctx.api.get("mcp/servers").json<{ data: ServerView[] }>();
        return printList(ctx.json, res, [
          col("name", "Name"),
          col("url", "URL"),
          col("auth", "Auth"),
          col("headers", "Headers"),
          col("rate", "Rate"),
          col("tools", "Tools"),
        ]);
      },
    },
    add: {
      help: `  mcp add NAME URL [--bearer-file F | --header-file H=F]... [--rate N]
             [--tools 'glob,glob'] [--auth oauth]
                                              Register a company MCP server (--secret-file H=F too);
                                              credentials stay in files on the control plane;
                                              --auth oauth: each person authorises once (portal)`,
      flags: serverFlags,
      run: async (ctx) => {
        const name = arg(ctx, 0, "mcp add needs a NAME");
        const res = await ctx.api.post("mcp/servers", { json: { name, ...body(ctx, "add") } })
          .json<ServerView>();
        return printOne(ctx.json, res, describe(res));
      },
    },
    set: {
      help: `  mcp set NAME URL [...as add]                Replace a server's registration`,
      flags: serverFlags,
      run: async (ctx) => {
        const name = arg(ctx, 0, "mcp set needs a NAME");
        const res = await ctx.api.put(`mcp/servers/${encodeURIComponent(name)}`, {
          json: body(ctx, "set"),
        }).json<ServerView>();
        return printOne(ctx.json, res, describe(res));
      },
    },
    remove: {
      help: `  mcp remove NAME                             Remove a company MCP server`,
      run: async (ctx) => {
        const name = arg(ctx, 0, "mcp remove needs a NAME");
        const res = await ctx.api.delete(`mcp/servers/${encodeURIComponent(name)}`).json();
        return printOne(ctx.json, res, `Removed the MCP server ${name}`);
      },
    },
  },
  note: `  The cluster's own read-only tools are llmgw.*; grant them like any: --tools 'llmgw.*'`,
};
