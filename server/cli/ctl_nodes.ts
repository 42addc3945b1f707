/** `llmgw ctl nodes …`: join codes, the node list, cordon/drain/remove, and shards by hand. */
import type { KyInstance } from "ky";
import { UsageError } from "../../core/command.ts";

export const nodesHelp =
  `  nodes [list]                                List nodes: state, labels, GPUs, engines, version, last heard
  nodes join-code [--labels k=v,…] [--expires 1h]   A one-time code for 'llmgw join'
  nodes show NODE                             One node in full (hardware, shards, warnings)
  nodes cordon|uncordon|drain NODE            Stop placing on a node / allow again / move off it
  nodes remove NODE                           Revoke the node's credential and forget it
  nodes start-shard NODE --shard-id ID --model NAME --engine E [--model-path P] [--args="…"]
  nodes stop-shard NODE SHARD`;

export const nodesFlags = {
  labels: { type: "string" },
  expires: { type: "string" },
  "shard-id": { type: "string" },
  model: { type: "string" },
  engine: { type: "string" },
  "model-path": { type: "string" },
  args: { type: "string" },
} as const;

type Values = Record<string, string | boolean | undefined>;

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
  shards: { shardId: string; model: string; state: string; pid: number; error?: string }[];
}

export async function ctlNodes(
  api: KyInstance,
  json: boolean,
  args: string[],
  values: Values,
): Promise<number> {
  const [verb = "list", target, extra] = args;
  const needNode = () => {
    if (!target) throw new UsageError(`nodes ${verb} needs the node's id or name`);
    return encodeURIComponent(target);
  };
  const out = (v: unknown) => console.log(JSON.stringify(v, null, 2));
  switch (verb) {
    case "list": {
      const { data } = await api.get("nodes").json<{ data: NodeJson[] }>();
      if (json) return out(data), 0;
      table(
        ["NAME", "ID", "STATE", "LABELS", "GPUS", "ENGINES", "VERSION", "LAST HEARD"],
        data.map((n) => [
          n.name,
          n.id,
          n.state,
          Object.entries(n.labels).map(([k, v]) => `${k}=${v}`).join(",") || "-",
          gpus(n),
          n.engines?.map((e) => e.version ? `${e.name} ${e.version}` : e.name).join(", ") || "-",
          n.version ?? "-",
          n.lastHeardAt ? ago(n.lastHeardAt) : "never",
        ]),
      );
      return 0;
    }
    case "join-code": {
      const body: Record<string, unknown> = {};
      if (typeof values.labels === "string") body.labels = parseLabels(values.labels);
      if (typeof values.expires === "string") body.expires_in_ms = parseDuration(values.expires);
      const made = await api.post("nodes/join-codes", { json: body }).json<
        { code: string; urls: string[]; expiresAt: number }
      >();
      if (json) return out(made), 0;
      console.log(
        `Join code (one use, expires ${
          new Date(made.expiresAt).toISOString()
        }):\n\n  ${made.code}\n\n` +
          `On the new node:  llmgw join <code> --data DIR\n` +
          `It dials ${made.urls.join(", ")}; if the node reaches this server at another address, ` +
          `add --control https://ADDRESS:PORT`,
      );
      return 0;
    }
    case "show":
      return out(await api.get(`nodes/${needNode()}`).json()), 0;
    case "cordon":
    case "uncordon":
    case "drain": {
      const n = await api.post(`nodes/${needNode()}/${verb}`).json<NodeJson>();
      if (json) return out(n), 0;
      console.log(`Node ${n.name} (${n.id}) is ${n.state}`);
      return 0;
    }
    case "remove": {
      const n = await api.delete(`nodes/${needNode()}`).json<NodeJson>();
      if (json) return out(n), 0;
      console.log(`Removed node ${n.name} (${n.id}); its credential is revoked`);
      return 0;
    }
    case "start-shard": {
      const node = needNode();
      const need = (k: string) => {
        const v = values[k];
        if (typeof v !== "string" || !v) throw new UsageError(`nodes start-shard needs --${k}`);
        return v;
      };
      const body: Record<string, unknown> = {
        shardId: need("shard-id"),
        model: need("model"),
        engine: need("engine"),
      };
      if (typeof values["model-path"] === "string") body.modelPath = values["model-path"];
      if (typeof values.args === "string") body.args = values.args.split(/\s+/).filter(Boolean);
      const s = await api.post(`nodes/${node}/shards`, { json: body }).json<{ state: string }>();
      if (json) return out(s), 0;
      console.log(`Shard ${body.shardId} on ${target}: ${s.state}`);
      return 0;
    }
    case "stop-shard": {
      const node = needNode();
      if (!extra) throw new UsageError("nodes stop-shard needs NODE and SHARD");
      const r = await api.delete(`nodes/${node}/shards/${encodeURIComponent(extra)}`).json();
      if (json) return out(r), 0;
      console.log(`Stopping shard ${extra} on ${target}`);
      return 0;
    }
    default:
      throw new UsageError(`unknown command 'ctl nodes ${verb}'\n\n${nodesHelp}`);
  }
}

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

function ago(t: number): string {
  const s = Math.max(0, Math.round((Date.now() - t) / 1000));
  return s < 120
    ? `${s}s ago`
    : s < 7200
    ? `${Math.round(s / 60)}m ago`
    : `${Math.round(s / 3600)}h ago`;
}

function table(head: string[], rows: string[][]): void {
  const cells = [head, ...rows];
  const widths = head.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  for (const r of cells) console.log(r.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd());
}

export function parseLabels(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text.split(",").map((s) => s.trim()).filter(Boolean)) {
    const eq = part.indexOf("=");
    if (eq <= 0) throw new UsageError(`label '${part}' must be key=value`);
    out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return out;
}

/** `90s`, `15m`, `1h`, `2d` (a bare number is seconds) → ms. */
export function parseDuration(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(s|m|h|d)?\s*$/.exec(text);
  if (!m) throw new UsageError(`--expires '${text}' must be like 90s, 15m, 1h or 2d`);
  const unit =
    { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(m[2] ?? "s") as "s" | "m" | "h" | "d"];
  return Math.round(Number(m[1]) * unit);
}
