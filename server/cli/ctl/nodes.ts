/** `llmgw ctl nodes …`: join codes, the node list, cordon/drain/remove, and replicas by hand. */
import { UsageError } from "../../../core/command.ts";
import type { Ctx, Noun, Verb } from "./client.ts";
import { cellText, renderTable, when } from "../table.ts";

interface NodeJson {
  id: string;
  name: string;
  state: string;
  labels: Record<string, string>;
  version: string | null;
  lastHeardAt: number | null;
  gpu?: {
    source: string;
    error?: string;
    gpus: { name: string; memoryFreeBytes?: number; memoryTotalBytes?: number }[];
  };
  engines?: { name: string; version?: string }[];
  host?: { cores?: number; ramAvailableBytes?: number };
  replicas: { replicaId: string; model: string; state: string; pid: number; error?: string }[];
  warnings?: string[];
}

const out = (v: unknown) => console.log(JSON.stringify(v, null, 2));

/** The NODE argument, as a path segment. */
function node(ctx: Ctx, verb: string): string {
  const target = ctx.args[0];
  if (!target) throw new UsageError(`nodes ${verb} needs the node's id or name`);
  return encodeURIComponent(target);
}

const list: Verb = {
  help:
    `  nodes [list]                                List nodes: state, labels, GPUs, engines, version, last heard`,
  run: async (ctx) => {
    const { data } = await ctx.api.get("nodes").json<{ data: NodeJson[] }>();
    if (ctx.json) return out(data), 0;
    table(
      ["Name", "ID", "State", "Labels", "GPUs", "Engines", "Version", "Last heard"],
      data.map((n) => [
        n.name,
        n.id,
        n.state,
        Object.entries(n.labels).map(([k, v]) => `${k}=${v}`).join(",") || "-",
        gpus(n),
        n.engines?.map((e) => e.version ? `${e.name} ${e.version}` : e.name).join(", ") || "-",
        n.version ?? "-",
        n.lastHeardAt ? when(n.lastHeardAt) : "never",
      ]),
    );
    return 0;
  },
};

const joinCode: Verb = {
  help: `  nodes join-code [--labels k=v,…] [--expires 1h]   A one-time code for 'llmgw join'`,
  flags: { labels: { type: "string" }, expires: { type: "string" } },
  run: async (ctx) => {
    const body: Record<string, unknown> = {};
    const values = ctx.values;
    if (typeof values.labels === "string") body.labels = parseLabels(values.labels);
    if (typeof values.expires === "string") body.expires_in_ms = parseDuration(values.expires);
    const made = await ctx.api.post("nodes/join-codes", { json: body }).json<
      { code: string; urls: string[]; expiresAt: number }
    >();
    if (ctx.json) return out(made), 0;
    console.log(
      `Join code (one use, expires ${
        new Date(made.expiresAt).toISOString()
      }):\n\n  ${made.code}\n\n` +
        `On the new node:  llmgw join <code> --data DIR\n` +
        `It dials ${made.urls.join(", ")}; if the node reaches this server at another address, ` +
        `add --control https://ADDRESS:PORT`,
    );
    return 0;
  },
};

const show: Verb = {
  help:
    `  nodes show NODE                             One node in full (hardware, replicas, warnings)`,
  run: async (ctx) => {
    const n = await ctx.api.get(`nodes/${node(ctx, "show")}`).json<NodeJson>();
    if (ctx.json) return out(n), 0;
    console.log(nodeText(n));
    return 0;
  },
};

/** `nodes show` for people: one fact a line, each replica on its own. */
export function nodeText(n: NodeJson, now = Date.now()): string {
  const host = n.host;
  const lines = [
    `Node ${n.name} (${n.id}): ${n.state}, version ${n.version ?? "-"}, last heard ${
      n.lastHeardAt ? when(n.lastHeardAt, now) : "never"
    }`,
    `  Labels:   ${cellText(n.labels)}`,
    `  Host:     ${
      host
        ? [
          host.cores !== undefined ? `${host.cores} cores` : "",
          host.ramAvailableBytes !== undefined ? `${gib(host.ramAvailableBytes)} GiB free` : "",
        ].filter(Boolean).join(", ") || "-"
        : "-"
    }`,
    `  GPUs:     ${gpus(n)}${n.gpu ? ` (from ${n.gpu.source})` : ""}`,
    `  Engines:  ${
      n.engines?.map((e) => e.version ? `${e.name} ${e.version}` : e.name).join(", ") || "-"
    }`,
    `  Replicas:${n.replicas.length ? "" : " none"}`,
    ...n.replicas.map((s) =>
      `    ${s.replicaId}  ${s.model}  ${s.state}  pid ${s.pid}${s.error ? `  (${s.error})` : ""}`
    ),
    ...(n.warnings ?? []).map((w) => `  Warning:  ${w}`),
  ];
  return lines.join("\n");
}

/** cordon, uncordon and drain; the first's help line says all three. */
const setFlag = (verb: string, help?: string): Verb => ({
  ...(help ? { help } : {}),
  run: async (ctx) => {
    const n = await ctx.api.post(`nodes/${node(ctx, verb)}/${verb}`).json<NodeJson>();
    if (ctx.json) return out(n), 0;
    console.log(`Node ${n.name} (${n.id}) is ${n.state}`);
    return 0;
  },
});

const remove: Verb = {
  help: `  nodes remove NODE                           Revoke the node's credential and forget it`,
  run: async (ctx) => {
    const n = await ctx.api.delete(`nodes/${node(ctx, "remove")}`).json<NodeJson>();
    if (ctx.json) return out(n), 0;
    console.log(`Removed node ${n.name} (${n.id}); its credential is revoked`);
    return 0;
  },
};

const startReplica: Verb = {
  help:
    `  nodes start-replica NODE --replica-id ID --model NAME --engine E [--model-path P] [--args="…"]`,
  flags: {
    "replica-id": { type: "string" },
    model: { type: "string" },
    engine: { type: "string" },
    "model-path": { type: "string" },
    args: { type: "string" },
  },
  run: async (ctx) => {
    const at = node(ctx, "start-replica");
    const values = ctx.values;
    const need = (k: string) => {
      const v = values[k];
      if (typeof v !== "string" || !v) throw new UsageError(`nodes start-replica needs --${k}`);
      return v;
    };
    const body: Record<string, unknown> = {
      replicaId: need("replica-id"),
      model: need("model"),
      engine: need("engine"),
    };
    if (typeof values["model-path"] === "string") body.modelPath = values["model-path"];
    if (typeof values.args === "string") body.args = values.args.split(/\s+/).filter(Boolean);
    const s = await ctx.api.post(`nodes/${at}/replicas`, { json: body }).json<{ state: string }>();
    if (ctx.json) return out(s), 0;
    console.log(`Replica ${body.replicaId} on ${ctx.args[0]}: ${s.state}`);
    return 0;
  },
};

const stopReplica: Verb = {
  help: `  nodes stop-replica NODE REPLICA`,
  run: async (ctx) => {
    const at = node(ctx, "stop-replica");
    const replica = ctx.args[1];
    if (!replica) throw new UsageError("nodes stop-replica needs NODE and REPLICA");
    const r = await ctx.api.delete(`nodes/${at}/replicas/${encodeURIComponent(replica)}`).json();
    if (ctx.json) return out(r), 0;
    console.log(`Stopping replica ${replica} on ${ctx.args[0]}`);
    return 0;
  },
};

const flagHelp =
  `  nodes cordon|uncordon|drain NODE            Stop placing on a node / allow again / move off it`;

export const nodes: Noun = {
  name: "nodes",
  verbs: {
    list,
    "join-code": joinCode,
    show,
    cordon: setFlag("cordon", flagHelp),
    uncordon: setFlag("uncordon"),
    drain: setFlag("drain"),
    remove,
    "start-replica": startReplica,
    "stop-replica": stopReplica,
  },
};

function gpus(n: NodeJson): string {
  if (!n.gpu) return "-";
  if (n.gpu.error && n.gpu.gpus.length === 0) return `error: ${n.gpu.error}`;
  if (n.gpu.gpus.length === 0) return "none";
  return n.gpu.gpus.map((g) => {
    const free = g.memoryFreeBytes, total = g.memoryTotalBytes;
    const mem = free !== undefined && total !== undefined
      ? ` ${gib(free)}/${gib(total)} GiB free`
      : "";
    return `${g.name}${mem}`;
  }).join("; ");
}

const gib = (b: number) => (b / 2 ** 30).toFixed(1);

function table(head: string[], rows: string[][]): void {
  console.log(renderTable(head, rows));
}

function parseLabels(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text.split(",").map((s) => s.trim()).filter(Boolean)) {
    const eq = part.indexOf("=");
    if (eq <= 0) throw new UsageError(`label '${part}' must be key=value`);
    out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return out;
}

/** `90s`, `15m`, `1h`, `2d` (a bare number is seconds) → ms. */
function parseDuration(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(s|m|h|d)?\s*$/.exec(text);
  if (!m) throw new UsageError(`--expires '${text}' must be like 90s, 15m, 1h or 2d`);
  const unit =
    { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(m[2] ?? "s") as "s" | "m" | "h" | "d"];
  return Math.round(Number(m[1]) * unit);
}
