/**
 * What `ctl model serve` says while it waits for the model's first replica: each stage as it is
 * reached (placement, weights, engine start, health), a note from the reconciler at once (such
 * as "fits nowhere — …", instead of after the whole wait), and on a terminal a progress line:
 * the weights' bytes with rate and time left, or how long the current stage has taken.
 */
import type { KyInstance } from "ky";
import { Progress } from "../progress.ts";

export interface WaitReplica {
  id: string;
  node: string;
  state: string;
  gpus: number[];
  reason?: string;
  fetched?: { bytes: number; total?: number; percent?: number };
}

interface Note {
  kind: string;
  message: string;
}

/** The stage the model is in, in words, from its replicas (the most advanced first) and notes. */
export function stage(reps: readonly WaitReplica[], notes: readonly Note[]): string {
  const by = (state: string) => reps.find((r) => r.state === state);
  const where = (r: WaitReplica) =>
    `on ${r.node}${r.gpus.length ? ` (cards ${r.gpus.join(",")})` : " (CPU)"}`;
  const ready = by("ready");
  if (ready) return `health check: asking the replica ${where(ready)} for an answer`;
  const starting = by("starting");
  if (starting) return `engine start: loading the model ${where(starting)}`;
  const fetching = by("fetching");
  if (fetching) return `weights: fetching ${where(fetching)}`;
  const pending = by("pending");
  if (pending) return `placement: placed ${where(pending)}, waiting for the node to take it`;
  const note = notes[0];
  if (note) return `placement: ${note.message}`;
  const failed = by("failed");
  if (failed) return `failed ${where(failed)}: ${failed.reason ?? "no reason given"}`;
  return "placement: waiting for the reconciler to place a replica";
}

export interface Waited {
  ready: boolean;
  smoke?: { ok: boolean; detail?: string };
}

/**
 * Polls until a replica answers its smoke request or the deadline passes. `say` lines are
 * printed whether or not stdout is a terminal (nothing at all with --json); the progress line
 * only on a terminal.
 */
export async function waitForReplica(
  api: KyInstance,
  model: string,
  opts: { deadline: number; json: boolean; pollMs?: number },
): Promise<Waited> {
  const progress = new Progress();
  const draw = progress.drawing && !opts.json;
  const say = (line: string) => !opts.json && progress.say(`  ${line}`);
  const path = encodeURIComponent(model);
  let said = "";
  try {
    while (Date.now() < opts.deadline) {
      const reps = (await api.get("replicas", { searchParams: { model } }).json<
        { data: WaitReplica[] }
      >()).data;
      const notes = reps.some((r) => r.state !== "failed") ? [] : (await api.get(
        `models/${path}/explain`,
      ).json<{ notes: Note[] }>()).notes;
      const now = stage(reps, notes);
      if (now !== said) say(now);
      said = now;
      const fetching = reps.find((r) => r.state === "fetching")?.fetched;
      if (draw && fetching) progress.bytes("weights", fetching.bytes, fetching.total);
      else if (draw) progress.waiting(now.split(":")[0]!);
      if (reps.some((x) => x.state === "ready")) {
        const smoke = await api.post(`models/${path}/smoke`, { throwHttpErrors: false })
          .json<{ ok: boolean; detail?: string; error?: { message: string } }>();
        if (smoke.ok) return { ready: true, smoke };
        const why = `not answering yet: ${smoke.detail ?? smoke.error?.message}`;
        if (why !== said) say(why);
        said = why;
      }
      await new Promise((res) => setTimeout(res, opts.pollMs ?? 500));
    }
    return { ready: false };
  } finally {
    progress.end();
  }
}
