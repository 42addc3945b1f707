/**
 * `llmgw ctl`: the admin API from a terminal. It finds the server and admin token from the data
 * directory (server.yaml's listen, admin.token), or takes --url and --token.
 */
import ky, { HTTPError, NetworkError } from "ky";
import type { Command } from "../../core/command.ts";
import { UsageError } from "../../core/command.ts";
import { resolveSettings, text } from "../../core/settings.ts";
import { loadServerConfig, locationSettings, parseListen } from "../config.ts";
import { parseFlags } from "./flags.ts";
import { ctlNodes, nodesFlags, nodesHelp } from "./ctl_nodes.ts";
import { ctlBackup, ctlConfig, ctlNotifyTest, ctlUsage, opsFlags, opsHelp } from "./ctl_ops.ts";

export const ctlSettings = {
  url: text("ctl.url", "", "Control plane URL (default: from DATA/server.yaml)", {
    flag: "url",
    env: "LLMGW_URL",
  }),
  token: text("ctl.token", "", "Admin token (default: DATA/admin.token)", {
    flag: "token",
    env: "LLMGW_ADMIN_TOKEN",
    secret: true,
  }),
};

const help = `Usage: llmgw ctl <area> <verb> [options] [--json]

  keys create --name NAME [--expires-at MS]   Make an API key (shown once)
  keys list                                   List API keys (prefixes only)
  keys revoke ID                              Revoke a key at once
  models list                                 List models, their replicas and each one's load
  usage list [--limit N]                      Recent usage rows
${opsHelp}
${nodesHelp}

Options: --data DIR, --url URL, --token TOKEN (env LLMGW_ADMIN_TOKEN), --json`;

export const ctlCommand: Command = {
  name: "ctl",
  summary: "Admin API from a terminal",
  async run(argv) {
    const { values, positionals } = parseFlags(argv, [locationSettings, ctlSettings], {
      json: { type: "boolean" },
      name: { type: "string" },
      "expires-at": { type: "string" },
      limit: { type: "string" },
      ...nodesFlags,
      ...opsFlags,
    });
    if (values.help || positionals.length === 0) {
      console.log(help);
      return values.help ? 0 : 2;
    }
    const api = await connect(values);
    const json = values.json === true;
    const [area, verb, arg] = positionals;
    try {
      if (area === "nodes") return await ctlNodes(api, json, positionals.slice(1), values);
      if (area === "usage" && verb === undefined) return await ctlUsage(api, values, json);
      if (area === "backup") return await ctlBackup(api, verb);
      if (area === "config") return await ctlConfig(api, positionals.slice(1), json);
      if (area === "notify" && verb === "test") return await ctlNotifyTest(api, json);
      switch (`${area} ${verb}`) {
        case "keys create": {
          if (typeof values.name !== "string") {
            throw new UsageError("keys create needs --name NAME");
          }
          const body: Record<string, unknown> = { name: values.name };
          if (typeof values["expires-at"] === "string") {
            body.expires_at = Number(values["expires-at"]);
          }
          const key = await api.post("keys", { json: body }).json<Record<string, unknown>>();
          if (json) console.log(JSON.stringify(key, null, 2));
          else {console.log(
              `Created key '${key.name}' (${key.id}). It is shown only now:\n\n  ${key.key}\n`,
            );}
          return 0;
        }
        case "keys list":
          return print(json, await api.get("keys").json(), [
            "id",
            "name",
            "prefix",
            "createdAt",
            "revokedAt",
          ]);
        case "keys revoke": {
          if (!arg) throw new UsageError("keys revoke needs the key's ID");
          const key = await api.delete(`keys/${encodeURIComponent(arg)}`).json<
            Record<string, unknown>
          >();
          if (json) console.log(JSON.stringify(key, null, 2));
          else console.log(`Revoked key '${key.name}' (${key.id})`);
          return 0;
        }
        case "models list": {
          const res = await api.get("models").json<{ data: Record<string, unknown>[] }>();
          if (json) return print(true, res, []);
          const data = res.data.map((m) => ({ ...m, replicas: replicaSummary(m.replicas) }));
          return print(false, { data }, ["name", "engine", "replicas", "queued", "description"]);
        }
        case "usage list": {
          const limit = typeof values.limit === "string" ? values.limit : "20";
          return print(json, await api.get("usage", { searchParams: { limit } }).json(), [
            "at",
            "model",
            "promptTokens",
            "completionTokens",
            "status",
            "latencyMs",
          ]);
        }
        default:
          throw new UsageError(`unknown command 'ctl ${positionals.join(" ")}'\n\n${help}`);
      }
    } catch (e) {
      if (e instanceof HTTPError) {
        const body = e.data as { error?: { message?: string } } | undefined;
        console.error(`llmgw ctl: ${body?.error?.message ?? `HTTP ${e.response.status}`}`);
        return 1;
      }
      if (e instanceof NetworkError) {
        console.error(`llmgw ctl: cannot reach the control plane at ${e.request.url}`);
        return 1;
      }
      throw e;
    }
  },
};

async function connect(values: Record<string, string | boolean | undefined>) {
  const env = Deno.env.toObject();
  const { dataDir } = resolveSettings(locationSettings, { flags: values, env });
  let { url, token } = resolveSettings(ctlSettings, { flags: values, env });
  if (!url) {
    const { hostname, port } = parseListen(
      (await loadServerConfig({ flags: {}, env: { LLMGW_DATA: dataDir } })).listen,
    );
    url = `http://${hostname === "0.0.0.0" ? "127.0.0.1" : hostname}:${port}`;
  }
  if (!token) {
    try {
      token = (await Deno.readTextFile(`${dataDir}/admin.token`)).trim();
    } catch {
      throw new UsageError(
        `no admin token: pass --token, set LLMGW_ADMIN_TOKEN, or point --data at a data directory`,
      );
    }
  }
  return ky.create({
    prefix: `${url.replace(/\/$/, "")}/api/v1/`,
    headers: { authorization: `Bearer ${token}` },
    retry: 0,
  });
}

/**
 * One line per model for its replicas and their load: `id state inflight/slots kv% waiting`.
 * An engine report not read yet is shown as `?`, never as zero.
 */
export function replicaSummary(replicas: unknown): string {
  if (!Array.isArray(replicas) || replicas.length === 0) return "-";
  return replicas.map((r) => {
    const load = r.load ?? {};
    const kv = load.known && typeof load.kvCacheUsage === "number"
      ? `kv ${Math.round(load.kvCacheUsage * 100)}%`
      : "kv ?";
    const waiting = load.known && typeof load.waiting === "number"
      ? `waiting ${load.waiting}`
      : "waiting ?";
    const breaker = r.breaker && r.breaker !== "closed" ? ` breaker ${r.breaker}` : "";
    return `${r.id} ${r.state} ${r.inFlight}/${r.slots ?? "∞"} ${kv} ${waiting}${breaker}`;
  }).join("; ");
}

function print(json: boolean, res: unknown, columns: string[]): number {
  const rows = (res as { data: Record<string, unknown>[] }).data;
  if (json) {
    console.log(JSON.stringify(rows, null, 2));
    return 0;
  }
  const cells = [
    columns,
    ...rows.map((r) =>
      columns.map((c) => r[c] === null || r[c] === undefined ? "-" : String(r[c]))
    ),
  ];
  const widths = columns.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  for (const r of cells) console.log(r.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd());
  return 0;
}
