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

/** Says each new stage (a plain line) and draws the progress line for the current one. */
export class StageLines {
  #said = "";
  #started = false;
  constructor(private readonly progress: Progress, private readonly quiet = false) {}

  show(reps: readonly WaitReplica[], notes: readonly Note[]): void {
    const now = stage(reps, notes);
    // An engine that starts between two looks was still started: its stage is said before the
    // health check, so what a person reads does not depend on the polling interval.
    const ready = reps.find((r) => r.state === "ready");
    if (ready && now.startsWith("health check") && !this.#started) {
      this.say(stage([{ ...ready, state: "starting" }], []));
    }
    this.say(now);
    if (this.quiet || !this.progress.drawing) return;
    const fetching = reps.find((r) => r.state === "fetching")?.fetched;
    if (fetching) this.progress.bytes("weights", fetching.bytes, fetching.total);
    else this.progress.waiting(this.#said.trim().split(":")[0]!);
  }

  /** A line, once: the same line again is not repeated. */
  say(line: string): void {
    if (line.startsWith("engine start") || line.startsWith("health check")) this.#started = true;
    if (this.quiet || line === this.#said) return;
    this.#said = line;
    this.progress.say(`  ${line}`);
  }
}

/**
 * Until `done` settles, shows the stages a model's first replica goes through as `read` reports
 * them (`llmgw up`, which reads its own control plane in-process).
 */
export async function followStages(
  progress: Progress,
  read: () => Promise<{ reps: readonly WaitReplica[]; notes: readonly Note[] }>,
  done: Promise<unknown>,
  pollMs = 500,
): Promise<void> {
  const lines = new StageLines(progress);
  let over = false;
  void done.finally(() => over = true).catch(() => {});
  try {
    while (!over) {
      // A model not declared yet, or a store that blinked: this look is skipped, not fatal.
      const seen = await read().catch(() => undefined);
      if (over) break;
      if (seen) lines.show(seen.reps, seen.notes);
      await Promise.race([new Promise((r) => setTimeout(r, pollMs)), done.catch(() => {})]);
    }
    // One last look, so the stages passed since the one before are said.
    const last = await read().catch(() => undefined);
    if (last) lines.show(last.reps, last.notes);
  } finally {
    progress.end();
  }
}

export interface Waited {
  ready: boolean;
  smoke?: { ok: boolean; detail?: string };
}

/**
 * Polls until a replica answers its smoke request or the deadline passes. Stage lines are
 * printed whether or not stdout is a terminal (nothing at all with --json); the progress line
 * only on a terminal.
 */
export async function waitForReplica(
  api: KyInstance,
  model: string,
  opts: { deadline: number; json: boolean; pollMs?: number },
): Promise<Waited> {
  const progress = new Progress();
  const lines = new StageLines(progress, opts.json);
  const path = encodeURIComponent(model);
  try {
    while (Date.now() < opts.deadline) {
      const reps = (await api.get("replicas", { searchParams: { model } }).json<
        { data: WaitReplica[] }
      >()).data;
      const notes = reps.some((r) => r.state !== "failed") ? [] : (await api.get(
        `models/${path}/explain`,
      ).json<{ notes: Note[] }>()).notes;
      lines.show(reps, notes);
      if (reps.some((x) => x.state === "ready")) {
        const smoke = await api.post(`models/${path}/smoke`, { throwHttpErrors: false })
          .json<{ ok: boolean; detail?: string; error?: { message: string } }>();
        if (smoke.ok) return { ready: true, smoke };
        lines.say(`not answering yet: ${smoke.detail ?? smoke.error?.message}`);
      }
      await new Promise((res) => setTimeout(res, opts.pollMs ?? 500));
    }
    return { ready: false };
  } finally {
    progress.end();
  }
}
