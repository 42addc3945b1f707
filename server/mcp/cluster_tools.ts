/**
 * The cluster itself as a read-only MCP server, `llmgw.*`: answered inside the control plane's
 * own process, so there is no token to keep and every control plane serves it. Nothing here
 * changes anything; usage is only ever of the caller's own keys.
 */
import { and, gte, inArray } from "drizzle-orm";
import type { Tool } from "./sdk.ts";
import { AppError } from "../../core/errors.ts";
import type { Store } from "../../db/store.ts";
import { usageDaily } from "../../db/schema.ts";
import type { KeyService } from "../keys/keys.ts";
import type { ModelServices } from "../models/model_services.ts";
import type { NodeServices } from "../nodes/node_services.ts";
import type { ModelCatalog } from "../router/catalog.ts";
import type { ReplicaTable } from "../router/replicas.ts";
import { utcDay } from "../usage/daily.ts";
import type { McpCaller } from "./caller.ts";

export interface ClusterToolDeps {
  store: Store;
  catalog: Pick<ModelCatalog, "list">;
  replicas: Pick<ReplicaTable, "list" | "view">;
  keys: Pick<KeyService, "list">;
  nodes: NodeServices | undefined;
  modelServices: Pick<ModelServices, "explain"> | undefined;
  now: () => number;
}

interface ClusterTool {
  tool: Tool;
  run(caller: McpCaller, args: Record<string, unknown>): Promise<unknown>;
}

const noInput = { type: "object" as const, properties: {} };
const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true };

function tool(name: string, description: string, inputSchema: Tool["inputSchema"] = noInput): Tool {
  return { name, description, inputSchema, annotations: readOnly };
}

export function clusterTools(deps: ClusterToolDeps): Map<string, ClusterTool> {
  const nodes = async () => deps.nodes ? await deps.nodes.hub.list() : [];
  const replicas = () => deps.replicas.list().map((r) => deps.replicas.view(r));
  const list: ClusterTool[] = [
    {
      tool: tool(
        "cluster_status",
        "The cluster at a glance: models, replicas ready, nodes connected",
      ),
      run: async () => {
        const ns = await nodes();
        const rs = replicas();
        return {
          models: deps.catalog.list().length,
          replicas: rs.length,
          replicasReady: rs.filter((r) => r.state === "ready").length,
          nodes: ns.length,
          nodesConnected: ns.filter((n) => n.connected).length,
          clusterListener: deps.nodes !== undefined,
        };
      },
    },
    {
      tool: tool("list_nodes", "The nodes with their state, labels, GPUs and replicas"),
      run: async () => ({ nodes: await nodes() }),
    },
    {
      tool: tool("list_models", "The models in the catalog"),
      run: () =>
        Promise.resolve({
          models: deps.catalog.list().map((m) => ({
            name: m.name,
            engine: m.engine,
            description: m.description ?? null,
          })),
        }),
    },
    {
      tool: tool("list_replicas", "The replicas serving models, with their state and load"),
      run: () => Promise.resolve({ replicas: replicas() }),
    },
    {
      tool: tool(
        "explain_placement",
        "Why a model is (or is not) placed where it is: each node considered",
        {
          type: "object",
          properties: { model: { type: "string", description: "A catalog model's name" } },
          required: ["model"],
        },
      ),
      run: async (_caller, args) => {
        if (!deps.modelServices) return { note: "this control plane runs no cluster listener" };
        const model = typeof args.model === "string" ? args.model : "";
        if (!model) throw new AppError("invalid_request", { detail: "model is required" }, "model");
        const res = await deps.modelServices.explain(model);
        return { model: res.model, profiles: res.profiles.map((p) => p.text), notes: res.notes };
      },
    },
    {
      tool: tool("my_usage", "This month's usage of the caller's own keys, per key and model"),
      run: async (caller) => {
        const own = caller.key.userId
          ? (await deps.keys.list()).filter((k) => k.userId === caller.key.userId)
          : [caller.key];
        const names = new Map(own.map((k) => [k.id, k.name]));
        const since = utcDay(deps.now()).slice(0, 8) + "01";
        const rows = await deps.store.db.select().from(usageDaily).where(
          and(inArray(usageDaily.keyId, [...names.keys()]), gte(usageDaily.day, since)),
        );
        return {
          since,
          rows: rows.map((r) => ({
            key: names.get(r.keyId),
            day: r.day,
            model: r.model,
            requests: r.requests,
            promptTokens: r.promptTokens,
            completionTokens: r.completionTokens,
            costMicros: r.costMicros,
          })),
        };
      },
    },
  ];
  return new Map(list.map((t) => [t.tool.name, t]));
}
