/**
 * `ctl model logs MODEL [--replica R] [--lines N] [--follow]`: the last lines each replica's
 * engine printed, as its node's agent keeps them (secrets already hidden there). With --follow it
 * asks again every two seconds and prints only what is new, until interrupted.
 */
import { UsageError } from "../../../core/command.ts";
import { engineLogMaxLines } from "../../../core/protocol/messages.ts";
import type { Ctx, Verb } from "./client.ts";

/** The admin API's answer (GET /models/:name/replicas/:rid/log). */
export interface EngineLogJson {
  model: string;
  replica: string;
  node: string;
  status: "ok" | "agent_too_old" | "not_connected" | "no_answer";
  lines: string[];
  adopted?: boolean;
  version?: string | null;
}

/** Why there are no lines, in a sentence; undefined when there are. */
export function logUnavailable(r: EngineLogJson): string | undefined {
  switch (r.status) {
    case "ok":
      return undefined;
    case "agent_too_old":
      return `this node's agent${r.version ? ` (${r.version})` : ""} is too old to show logs; ` +
        `upgrade llmgw on ${r.node}`;
    case "not_connected":
      return `node ${r.node} is not connected`;
    case "no_answer":
      return `node ${r.node} did not answer in time`;
  }
}

/** What `next` (a later window of the same log) adds after `prev`: lines past their overlap. */
export function newLines(prev: readonly string[], next: readonly string[]): string[] {
  for (let k = Math.min(prev.length, next.length); k > 0; k--) {
    let same = true;
    for (let i = 0; i < k && same; i++) same = prev[prev.length - k + i] === next[i];
    if (same) return next.slice(k);
  }
  return [...next];
}

function lineCount(ctx: Ctx): number {
  const v = ctx.values.lines;
  if (v === undefined) return 100;
  const n = Number(v);
  if (typeof v !== "string" || !Number.isInteger(n) || n < 1 || n > engineLogMaxLines) {
    throw new UsageError(`--lines must be a whole number from 1 to ${engineLogMaxLines}`);
  }
  return n;
}

async function replicaIds(ctx: Ctx, model: string): Promise<string[]> {
  const given = ctx.values.replica;
  if (typeof given === "string") return [given];
  const res = await ctx.api.get("replicas", { searchParams: { model } })
    .json<{ data: { id: string }[] }>();
  if (res.data.length === 0) throw new UsageError(`model ${model} has no replicas`);
  return res.data.map((r) => r.id);
}

export const modelLogs: Verb = {
  help: `  model logs NAME [--replica R] [--lines N] [--follow]
                                              The last lines its engines printed (secrets hidden);
                                              --follow keeps printing new ones`,
  flags: { replica: { type: "string" }, lines: { type: "string" }, follow: { type: "boolean" } },
  run: async (ctx) => {
    const model = ctx.args[0];
    if (!model) throw new UsageError("model logs needs the model's NAME");
    const lines = lineCount(ctx);
    const ids = await replicaIds(ctx, model);
    const read = (id: string) =>
      ctx.api.get(
        `models/${encodeURIComponent(model)}/replicas/${encodeURIComponent(id)}/log`,
        { searchParams: { lines } },
      ).json<EngineLogJson>();
    const answers = await Promise.all(ids.map(read));
    if (ctx.json && !ctx.values.follow) {
      console.log(JSON.stringify(answers.length === 1 ? answers[0] : answers, null, 2));
      return answers.some((a) => a.status === "ok") ? 0 : 1;
    }
    for (const a of answers) print(ctx, a, a.lines, answers.length > 1);
    if (!answers.some((a) => a.status === "ok")) return 1;
    if (!ctx.values.follow) return 0;
    const seen = new Map(answers.map((a) => [a.replica, a.lines]));
    // A replica that goes (stopped, replaced) or a control plane that blinks only skips a round.
    const readOrNot = (id: string) => read(id).catch(() => undefined);
    for (;;) {
      await new Promise((r) => setTimeout(r, 2000));
      for (const a of await Promise.all(ids.map(readOrNot))) {
        if (a?.status !== "ok") continue;
        print(ctx, a, newLines(seen.get(a.replica) ?? [], a.lines), ids.length > 1);
        seen.set(a.replica, a.lines);
      }
    }
  },
};

/** Lines of one replica; several replicas' each carry its id, as `tail -f` of many files does. */
function print(ctx: Ctx, a: EngineLogJson, lines: readonly string[], many: boolean): void {
  const why = logUnavailable(a);
  if (why) return console.error(`replica ${a.replica}: ${why}`);
  if (a.adopted && !ctx.values.follow) {
    console.error(
      `replica ${a.replica}: its engine was started by an earlier agent on ${a.node}; ` +
        `what it printed before that agent stopped is not kept`,
    );
  }
  for (const l of lines) {
    if (ctx.json) console.log(JSON.stringify({ replica: a.replica, line: l }));
    else console.log(many ? `${a.replica} | ${l}` : l);
  }
}
