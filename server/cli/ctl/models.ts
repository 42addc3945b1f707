/**
 * `llmgw ctl models`, `ctl model …`, `ctl replicas` and `ctl restart --model`: the models service
 * from a terminal (the list with each replica's load; plan, add, serve with progress, explain,
 * context, gpus, resources, stop/start, logs, remove, rolling restart). Every command takes --json.
 */
import { UsageError } from "../../../core/command.ts";
import { formatBytes } from "../../models/memory_estimate.ts";
import { waitForReplica } from "./serve_wait.ts";
import { modelLogs } from "./model_logs.ts";
import {
  col,
  type Ctx,
  type FlagSpecs,
  type Noun,
  printList,
  printOne,
  type Values,
} from "./client.ts";

function int(values: Values, key: string): number | undefined {
  const v = values[key];
  if (typeof v !== "string") return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new UsageError(`--${key} must be a number`);
  return n;
}

/** A relative path is the operator's own directory's: made absolute, as the catalog takes it. */
async function absoluteSource(source: string): Promise<string> {
  if (/^(hf:|https?:\/\/|\/)/.test(source)) return source;
  try {
    return await Deno.realPath(source);
  } catch {
    return source; // the server says what is wrong with it
  }
}

async function planBody(given: string, values: Values) {
  const source = await absoluteSource(given);
  return {
    source,
    ...(typeof values.name === "string" ? { name: values.name } : {}),
    ...(int(values, "context") ? { context: int(values, "context") } : {}),
    ...(int(values, "slots") ? { slots: int(values, "slots") } : {}),
    ...(int(values, "replicas") !== undefined ? { replicas: int(values, "replicas") } : {}),
    ...(values["on-demand"] ? { on_demand: true } : {}),
    ...(values.embeddings ? { embeddings: true } : {}),
    ...(typeof values.engine === "string" ? { engine: values.engine } : {}),
    ...(typeof values.sha256 === "string" ? { sha256: values.sha256 } : {}),
  };
}

interface PlanJson {
  ok: boolean;
  name: string;
  engine?: string;
  context: number;
  slots: number;
  layouts: {
    device: string;
    gpus: number;
    nodes: string[];
    freeNow: string[];
    split?: { node: string; role: string; layers?: number; bytes: number }[];
  }[];
  refusals: { message: string }[];
  warnings: { message: string }[];
  estimate?: { total: number };
}

function planText(p: PlanJson): string {
  const lines = [
    `${p.name}: ${p.ok ? "can be served" : "cannot be served"}${
      p.engine ? ` on ${p.engine}` : ""
    }, context ${p.context} × ${p.slots} slots`,
  ];
  for (const l of p.layouts) {
    if (l.split) {
      lines.push(
        `  ${
          l.device === "gpu" ? `${l.gpus} card(s) per node` : "CPU"
        }: split across ${l.split.length} nodes${
          l.freeNow.length ? "" : " (once they have room)"
        }:`,
      );
      for (const m of l.split) {
        const layers = m.layers !== undefined ? `${m.layers} layer(s), ` : "";
        lines.push(`    ${m.node}  ${m.role}  ${layers}${formatBytes(m.bytes)}`);
      }
      continue;
    }
    lines.push(
      `  ${l.device === "gpu" ? `${l.gpus} card(s)` : "CPU"}: fits ${
        l.nodes.join(", ") || "no node"
      }; free now: ${l.freeNow.join(", ") || "none"}`,
    );
  }
  for (const r of p.refusals) lines.push(`  refused: ${r.message}`);
  for (const w of p.warnings) lines.push(`  warning: ${w.message}`);
  return lines.join("\n");
}

interface ReplicaJson {
  id: string;
  model: string;
  node: string;
  state: string;
  gpus: number[];
  ramBytes?: number;
  cores?: number;
  inFlight: number;
  reason?: string;
  fetched?: { bytes: number; total?: number; percent?: number };
}

function replicaLine(r: ReplicaJson): string {
  const progress = r.fetched
    ? ` ${r.fetched.percent !== undefined ? `${r.fetched.percent}%` : `${r.fetched.bytes} bytes`}`
    : "";
  const cards = r.gpus.length ? ` cards ${r.gpus.join(",")}` : " cpu";
  const held = r.ramBytes !== undefined && r.cores !== undefined
    ? `  ${formatBytes(r.ramBytes)}, ${r.cores} core(s)`
    : "";
  return `${r.model}  ${r.id}  ${r.node}  ${r.state}${progress}${cards}${held}  in flight ${r.inFlight}${
    r.reason ? `  (${r.reason})` : ""
  }`;
}

/** The model's NAME (the first argument), as a path segment. */
function name(ctx: Ctx, what: string): string {
  const n = ctx.args[0];
  if (!n) throw new UsageError(`${what} needs the model's NAME`);
  return encodeURIComponent(n);
}

const planFlags: FlagSpecs = {
  name: { type: "string" },
  context: { type: "string" },
  slots: { type: "string" },
  replicas: { type: "string" },
  "on-demand": { type: "boolean" },
  embeddings: { type: "boolean" },
  engine: { type: "string" },
  sha256: { type: "string" },
};

export const models: Noun = {
  name: "models",
  verbs: {
    list: {
      help:
        `  models list                                 List models, their replicas and each one's load`,
      run: async (ctx) => {
        const res = await ctx.api.get("models").json<{ data: Record<string, unknown>[] }>();
        if (ctx.json) return printList(true, res, []);
        const data = res.data.map((m) => ({ ...m, replicas: replicaSummary(m.replicas) }));
        return printList(false, { data }, [
          col("name", "Model"),
          col("engine", "Engine"),
          col("replicas", "Replicas"),
          col("queued", "Queued"),
          col("description", "Description"),
        ]);
      },
    },
  },
};

/** One line per replica: state, in flight of slots, and the engine's load; unread load is "?". */
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

/** stop and start; the first's help line says both. */
const stopOrStart = (verb: "stop" | "start", help?: string) => ({
  ...(help ? { help } : {}),
  run: async (ctx: Ctx) => {
    const r = await ctx.api.post(`models/${name(ctx, `model ${verb}`)}/${verb}`).json();
    return printOne(
      ctx.json,
      r,
      verb === "stop" ? `Stopped ${ctx.args[0]}` : `Started ${ctx.args[0]}`,
    );
  },
});

export const model: Noun = {
  name: "model",
  verbs: {
    plan: {
      help:
        `  model plan SOURCE [--name N] [--context T] [--slots S] [--replicas R] [--on-demand] [--embeddings] [--engine E] [--sha256 HEX]
                                              What serving SOURCE would take on this cluster`,
      flags: planFlags,
      run: async (ctx) => {
        const a = ctx.args[0];
        if (!a) throw new UsageError("model plan needs a SOURCE");
        const p = await ctx.api.post("models/plan", { json: await planBody(a, ctx.values) })
          .json<PlanJson>();
        printOne(ctx.json, p, planText(p));
        return p.ok ? 0 : 1;
      },
    },
    add: {
      help: `  model add -f FILE [--replace]               Add the model(s) in a YAML file`,
      flags: { file: { type: "string", short: "f" }, replace: { type: "boolean" } },
      run: async (ctx) => {
        const values = ctx.values;
        if (typeof values.file !== "string") throw new UsageError("model add needs -f FILE");
        const yaml = await Deno.readTextFile(values.file);
        const r = await ctx.api.post("models", {
          json: { yaml },
          searchParams: values.replace ? { replace: "true" } : {},
        }).json<{ data: { name: string }[] }>();
        return printOne(ctx.json, r.data, `Added ${r.data.map((m) => m.name).join(", ")}`);
      },
    },
    serve: {
      help:
        `  model serve SOURCE [same as plan]           Plan, add and start; waits (2 min) for the first replica`,
      flags: { ...planFlags, "wait-ms": { type: "string" } },
      run: serve,
    },
    explain: {
      help:
        `  model explain NAME                          Where each replica runs and why; what a new one needs`,
      run: async (ctx) => {
        const r = await ctx.api.get(`models/${name(ctx, "model explain")}/explain`).json<{
          running?: { text: string }[];
          profiles: { text: string }[];
          notes: { kind: string; message: string }[];
        }>();
        const text = [
          ...(r.running?.length ? r.running.map((x) => x.text) : ["no replica is running"]),
          ...r.profiles.map((p) => p.text),
          ...r.notes.map((n) => `${n.kind}: ${n.message}`),
        ].join("\n");
        return printOne(ctx.json, r, text);
      },
    },
    context: {
      help:
        `  model context NAME TOKENS [--slots N] [--max-output N]   (or --max-output alone: no restart)`,
      flags: { slots: { type: "string" }, "max-output": { type: "string" } },
      run: async (ctx) => {
        const values = ctx.values;
        const b = ctx.args[1];
        const tokens = b === undefined ? undefined : Number(b);
        if (tokens !== undefined && !Number.isInteger(tokens)) {
          throw new UsageError("model context NAME TOKENS: TOKENS must be a whole number");
        }
        const body = {
          ...(tokens !== undefined ? { tokens } : {}),
          ...(int(values, "slots") ? { slots: int(values, "slots") } : {}),
          ...(int(values, "max-output") ? { max_output: int(values, "max-output") } : {}),
        };
        const r = await ctx.api.post(`models/${name(ctx, "model context")}/context`, {
          json: body,
        }).json<{ restart: boolean }>();
        return printOne(
          ctx.json,
          r,
          r.restart ? `Changed; replicas restart one by one` : `Changed; in force now, no restart`,
        );
      },
    },
    gpus: {
      help:
        `  model gpus NAME N                           Cards per replica (replicas restarted one by one)`,
      run: async (ctx) => {
        const n = Number(ctx.args[1]);
        if (!Number.isInteger(n)) throw new UsageError("model gpus NAME N");
        const r = await ctx.api.post(`models/${name(ctx, "model gpus")}/gpus`, {
          json: { gpus: n },
        }).json();
        return printOne(
          ctx.json,
          r,
          `Changed to ${n} card(s) per replica; replicas restart one by one`,
        );
      },
    },
    resources: {
      help: `  model resources NAME [--memory GB] [--cores N]`,
      flags: { memory: { type: "string" }, cores: { type: "string" } },
      run: async (ctx) => {
        const values = ctx.values;
        const body = {
          ...(int(values, "memory") ? { memory_gb: int(values, "memory") } : {}),
          ...(int(values, "cores") ? { cores: int(values, "cores") } : {}),
        };
        const r = await ctx.api.post(`models/${name(ctx, "model resources")}/resources`, {
          json: body,
        }).json();
        return printOne(ctx.json, r, `Changed; replicas restart one by one`);
      },
    },
    judge: {
      help:
        `  model judge NAME FAMILY|off                 Give the model the judge role (llama-guard-3, qwen3guard) or take it`,
      run: async (ctx) => {
        const family = ctx.args[1];
        if (!family) throw new UsageError("model judge NAME FAMILY|off");
        const r = await ctx.api.post(`models/${name(ctx, "model judge")}/judge`, {
          json: { format: family === "off" ? null : family },
        }).json();
        return printOne(
          ctx.json,
          r,
          family === "off"
            ? `${ctx.args[0]} is no longer a judge`
            : `${ctx.args[0]} judges in the ${family} format`,
        );
      },
    },
    stop: stopOrStart(
      "stop",
      `  model stop|start NAME                       Stop serving (clients are told) / serve again`,
    ),
    start: stopOrStart("start"),
    logs: modelLogs,
    remove: {
      help:
        `  model remove NAME [--keep-weights]          Take it out of the catalog, and its files no other
                                              model uses off the nodes (unless --keep-weights)`,
      // --purge is what removing does by default now; it is still accepted.
      flags: { purge: { type: "boolean" }, "keep-weights": { type: "boolean" } },
      run: async (ctx) => {
        const r = await ctx.api.delete(`models/${name(ctx, "model remove")}`, {
          searchParams: ctx.values["keep-weights"] ? { purge: "false" } : {},
        }).json();
        return printOne(ctx.json, r, `Removed ${ctx.args[0]}`);
      },
    },
  },
};

export const replicas: Noun = {
  name: "replicas",
  verbs: {},
  bare: {
    help: `  replicas [--model NAME]                     Replica states with progress`,
    flags: { model: { type: "string" } },
    run: async (ctx) => {
      const m = typeof ctx.values.model === "string" ? ctx.values.model : undefined;
      const res = await ctx.api.get("replicas", { searchParams: m ? { model: m } : {} }).json<
        { data: ReplicaJson[] }
      >();
      return printOne(ctx.json, res.data, res.data.map(replicaLine).join("\n") || "no replicas");
    },
  },
};

export const restart: Noun = {
  name: "restart",
  verbs: {},
  bare: {
    help: `  restart --model NAME                        Rolling restart: no request dropped`,
    flags: { model: { type: "string" } },
    run: async (ctx) => {
      const m = ctx.values.model;
      if (typeof m !== "string") throw new UsageError("restart needs --model NAME");
      const r = await ctx.api.post(`models/${encodeURIComponent(m)}/restart`).json<
        { restarting: number }
      >();
      return printOne(ctx.json, r, `Restarting ${r.restarting} replica(s) of ${m} one by one`);
    },
  },
};

/** Plan + add, then waits with progress until the first replica answers, or says why not. */
async function serve(ctx: Ctx): Promise<number> {
  const { api, json, values } = ctx;
  const source = ctx.args[0];
  if (!source) throw new UsageError("model serve needs a SOURCE");
  const res = await api.post("models/serve", {
    json: await planBody(source, values),
    throwHttpErrors: false,
  });
  const r = await res.json<{ plan: PlanJson; added: boolean; error?: { message: string } }>();
  if (r.error) throw new UsageError(r.error.message);
  if (!r.added) {
    printOne(json, r, planText(r.plan));
    return 1;
  }
  const model = r.plan.name;
  if (!json) console.log(`${planText(r.plan)}\nAdded ${model}; waiting for its first replica…`);
  const deadline = Date.now() + (int(values, "wait-ms") ?? 120_000);
  const waited = await waitForReplica(api, model, { deadline, json });
  if (waited.ready) {
    const smoke = waited.smoke!;
    printOne(json, { model, ready: true, smoke }, `${model} answers: ${smoke.detail}`);
    return 0;
  }
  const why = await api.get(`models/${encodeURIComponent(model)}/explain`).json<
    { profiles: { text: string }[]; notes: { message: string }[] }
  >();
  const text = [...why.notes.map((n) => n.message), ...why.profiles.map((p) => p.text)].join("\n");
  printOne(json, { model, ready: false, why }, `${model} has no replica answering yet:\n${text}`);
  return 1;
}
