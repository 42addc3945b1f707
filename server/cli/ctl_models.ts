/**
 * `llmgw ctl model …`, `ctl replicas` and `ctl restart --model`: the models service from a
 * terminal (plan, add, serve with progress, explain, context, gpus, resources, stop/start,
 * remove, rolling restart). Every command takes --json.
 */
import type { KyInstance } from "ky";
import { UsageError } from "../../core/command.ts";
import { formatBytes } from "../models/memory_estimate.ts";

export const modelHelp =
  `  model plan SOURCE [--name N] [--context T] [--slots S] [--replicas R] [--on-demand] [--embeddings] [--engine E] [--sha256 HEX]
                                              What serving SOURCE would take on this cluster
  model add -f FILE [--replace]               Add the model(s) in a YAML file
  model serve SOURCE [same as plan]           Plan, add and start; waits (2 min) for the first replica
  model explain NAME                          Where each replica runs and why; what a new one needs
  model context NAME TOKENS [--slots N] [--max-output N]   (or --max-output alone: no restart)
  model gpus NAME N                           Cards per replica (replicas restarted one by one)
  model resources NAME [--memory GB] [--cores N]
  model stop|start NAME                       Stop serving (clients are told) / serve again
  model remove NAME [--keep-weights]          Take it out of the catalog, and its files no other
                                              model uses off the nodes (unless --keep-weights)
  replicas [--model NAME]                     Replica states with progress
  restart --model NAME                        Rolling restart: no request dropped
  weights prune                               Every node removes the fetched weights no model uses`;

export const modelFlags = {
  file: { type: "string", short: "f" },
  replace: { type: "boolean" },
  context: { type: "string" },
  slots: { type: "string" },
  replicas: { type: "string" },
  "on-demand": { type: "boolean" },
  embeddings: { type: "boolean" },
  "max-output": { type: "string" },
  memory: { type: "string" },
  cores: { type: "string" },
  purge: { type: "boolean" },
  "keep-weights": { type: "boolean" },
  "wait-ms": { type: "string" },
  sha256: { type: "string" },
} as const;

type Values = Record<string, string | boolean | undefined>;

function int(values: Values, key: string): number | undefined {
  const v = values[key];
  if (typeof v !== "string") return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new UsageError(`--${key} must be a number`);
  return n;
}

function out(json: boolean, value: unknown, text: string): number {
  console.log(json ? JSON.stringify(value, null, 2) : text);
  return 0;
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
  layouts: { device: string; gpus: number; nodes: string[]; freeNow: string[] }[];
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

export async function ctlModels(
  api: KyInstance,
  json: boolean,
  positionals: string[],
  values: Values,
): Promise<number> {
  const [area, verb, a, b] = positionals;
  const name = (n: string | undefined, what: string) => {
    if (!n) throw new UsageError(`${what} needs the model's NAME`);
    return encodeURIComponent(n);
  };
  if (area === "replicas") {
    const model = typeof values.model === "string" ? values.model : undefined;
    const res = await api.get("replicas", { searchParams: model ? { model } : {} }).json<
      { data: ReplicaJson[] }
    >();
    return out(json, res.data, res.data.map(replicaLine).join("\n") || "no replicas");
  }
  if (area === "weights") {
    if (verb !== "prune") throw new UsageError(`unknown command 'ctl weights ${verb ?? ""}'`);
    const r = await api.post("weights/prune").json<{ nodes: number; failed: string[] }>();
    const text = `asked ${r.nodes} node(s) to remove the weights no model uses` +
      (r.failed.length ? `; failed: ${r.failed.join("; ")}` : "");
    out(json, r, text);
    return r.failed.length ? 1 : 0;
  }
  if (area === "restart") {
    if (typeof values.model !== "string") throw new UsageError("restart needs --model NAME");
    const r = await api.post(`models/${encodeURIComponent(values.model)}/restart`).json<
      { restarting: number }
    >();
    return out(json, r, `Restarting ${r.restarting} replica(s) of ${values.model} one by one`);
  }
  switch (verb) {
    case "plan": {
      if (!a) throw new UsageError("model plan needs a SOURCE");
      const p = await api.post("models/plan", { json: await planBody(a, values) }).json<PlanJson>();
      out(json, p, planText(p));
      return p.ok ? 0 : 1;
    }
    case "add": {
      if (typeof values.file !== "string") throw new UsageError("model add needs -f FILE");
      const yaml = await Deno.readTextFile(values.file);
      const r = await api.post("models", {
        json: { yaml },
        searchParams: values.replace ? { replace: "true" } : {},
      }).json<{ data: { name: string }[] }>();
      return out(json, r.data, `Added ${r.data.map((m) => m.name).join(", ")}`);
    }
    case "serve":
      return await serve(api, json, a, values);
    case "explain": {
      const r = await api.get(`models/${name(a, "model explain")}/explain`).json<{
        running?: { text: string }[];
        profiles: { text: string }[];
        notes: { kind: string; message: string }[];
      }>();
      const text = [
        ...(r.running?.length ? r.running.map((x) => x.text) : ["no replica is running"]),
        ...r.profiles.map((p) => p.text),
        ...r.notes.map((n) => `${n.kind}: ${n.message}`),
      ].join("\n");
      return out(json, r, text);
    }
    case "context": {
      const tokens = b === undefined ? undefined : Number(b);
      if (tokens !== undefined && !Number.isInteger(tokens)) {
        throw new UsageError("model context NAME TOKENS: TOKENS must be a whole number");
      }
      const body = {
        ...(tokens !== undefined ? { tokens } : {}),
        ...(int(values, "slots") ? { slots: int(values, "slots") } : {}),
        ...(int(values, "max-output") ? { max_output: int(values, "max-output") } : {}),
      };
      const r = await api.post(`models/${name(a, "model context")}/context`, { json: body })
        .json<{ restart: boolean }>();
      return out(
        json,
        r,
        r.restart ? `Changed; replicas restart one by one` : `Changed; in force now, no restart`,
      );
    }
    case "gpus": {
      const n = Number(b);
      if (!Number.isInteger(n)) throw new UsageError("model gpus NAME N");
      const r = await api.post(`models/${name(a, "model gpus")}/gpus`, { json: { gpus: n } })
        .json();
      return out(json, r, `Changed to ${n} card(s) per replica; replicas restart one by one`);
    }
    case "resources": {
      const body = {
        ...(int(values, "memory") ? { memory_gb: int(values, "memory") } : {}),
        ...(int(values, "cores") ? { cores: int(values, "cores") } : {}),
      };
      const r = await api.post(`models/${name(a, "model resources")}/resources`, { json: body })
        .json();
      return out(json, r, `Changed; replicas restart one by one`);
    }
    case "stop":
    case "start": {
      const r = await api.post(`models/${name(a, `model ${verb}`)}/${verb}`).json();
      return out(json, r, verb === "stop" ? `Stopped ${a}` : `Started ${a}`);
    }
    case "remove": {
      const r = await api.delete(`models/${name(a, "model remove")}`, {
        searchParams: values["keep-weights"] ? { purge: "false" } : {},
      }).json();
      return out(json, r, `Removed ${a}`);
    }
    default:
      throw new UsageError(`unknown command 'ctl ${positionals.join(" ")}'\n\n${modelHelp}`);
  }
}

/** Plan + add, then waits with progress until the first replica answers, or says why not. */
async function serve(api: KyInstance, json: boolean, source: string | undefined, values: Values) {
  if (!source) throw new UsageError("model serve needs a SOURCE");
  const res = await api.post("models/serve", {
    json: await planBody(source, values),
    throwHttpErrors: false,
  });
  const r = await res.json<{ plan: PlanJson; added: boolean; error?: { message: string } }>();
  if (r.error) throw new UsageError(r.error.message);
  if (!r.added) {
    out(json, r, planText(r.plan));
    return 1;
  }
  const model = r.plan.name;
  if (!json) console.log(`${planText(r.plan)}\nAdded ${model}; waiting for its first replica…`);
  const deadline = Date.now() + (int(values, "wait-ms") ?? 120_000);
  let last = "";
  while (Date.now() < deadline) {
    const reps = (await api.get("replicas", { searchParams: { model } }).json<
      { data: ReplicaJson[] }
    >()).data;
    const line = reps.map(replicaLine).join("; ");
    if (!json && line && line !== last) console.log(`  ${line}`);
    last = line;
    if (reps.some((x) => x.state === "ready")) {
      const smoke = await api.post(`models/${encodeURIComponent(model)}/smoke`, {
        throwHttpErrors: false,
      }).json<{ ok: boolean; detail?: string; error?: { message: string } }>();
      if (smoke.ok) {
        out(json, { model, ready: true, smoke }, `${model} answers: ${smoke.detail}`);
        return 0;
      }
      if (!json) console.log(`  not answering yet: ${smoke.detail ?? smoke.error?.message}`);
    }
    await new Promise((res) => setTimeout(res, 500));
  }
  const why = await api.get(`models/${encodeURIComponent(model)}/explain`).json<
    { profiles: { text: string }[]; notes: { message: string }[] }
  >();
  const text = [...why.notes.map((n) => n.message), ...why.profiles.map((p) => p.text)].join("\n");
  out(json, { model, ready: false, why }, `${model} has no replica answering yet:\n${text}`);
  return 1;
}
