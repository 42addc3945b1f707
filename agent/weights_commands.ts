/**
 * The agent's answers to `fetch_weights` and `remove_weights`: a pinned source in, a local path
 * (or the purge's outcome) out, with progress sent as it goes. Progress also moves the waiting
 * replica's readiness clock, so a large download that keeps moving is not given up on.
 */
import type { AgentMessage, ServerMessage } from "../core/protocol/messages.ts";
import { AppError } from "../core/errors.ts";
import {
  describeSource,
  type NodeWeights,
  type PinnedSource,
  pinnedSourceSchema,
} from "./weights/mod.ts";

type FetchWeights = Extract<ServerMessage, { type: "fetch_weights" }>;
type RemoveWeights = Extract<ServerMessage, { type: "remove_weights" }>;

export interface WeightsCommandsDeps {
  weights: NodeWeights;
  send: (m: AgentMessage) => void;
  /** Supervisor.touch: progress for a replica that is starting. */
  touch: (replicaId: string) => void;
  /** Mirrors used when the command names none: the agent's control planes (`clusterMirrors`). */
  mirrors?: string[];
}

function parsePinned(raw: unknown): PinnedSource {
  const r = pinnedSourceSchema.safeParse(raw);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  throw new Error(
    `the pinned source is not valid: ${issue.path.join(".") || "source"}: ${issue.message}`,
  );
}

function message(e: unknown): string {
  return e instanceof AppError || e instanceof Error ? e.message : String(e);
}

export class WeightsCommands {
  constructor(private readonly d: WeightsCommandsDeps) {}

  /** Never throws: the outcome goes back as the command's result. */
  async fetch(m: FetchWeights): Promise<void> {
    const result = (r: { ok: boolean; error?: string; path?: string }) =>
      this.d.send({ type: "command_result", id: m.id, ...r });
    let source: PinnedSource;
    try {
      source = parsePinned(m.pinned);
    } catch (e) {
      return result({ ok: false, error: message(e) });
    }
    try {
      const { path } = await this.d.weights.ensureWeights(source, {
        mirrors: m.mirrors ?? this.d.mirrors ?? [],
        ...(source.allowPickle ? { allowPickle: true } : {}),
        onProgress: (p) => {
          if (m.replicaId) this.d.touch(m.replicaId);
          this.d.send({
            type: "weights_progress",
            id: m.id,
            source: describeSource(source),
            ...(m.replicaId ? { replicaId: m.replicaId } : {}),
            phase: p.phase,
            bytesDone: p.bytesDone,
            bytesTotal: p.bytesTotal,
          });
        },
      });
      result({ ok: true, path });
    } catch (e) {
      result({ ok: false, error: message(e) });
    }
  }

  /**
   * Removes the source's files, keeping those another model's source names; with no source
   * (`ctl weights prune`), every fetched version none of `keep` names.
   */
  async remove(m: RemoveWeights): Promise<void> {
    const result = (r: { ok: boolean; error?: string }) =>
      this.d.send({ type: "command_result", id: m.id, ...r });
    try {
      const keep = (m.keep ?? []).map(parsePinned);
      if (m.pinned === undefined) {
        if (m.keep === undefined) throw new Error("remove_weights needs a source, or what to keep");
        await this.d.weights.prune(keep);
      } else {
        await this.d.weights.purge(parsePinned(m.pinned), keep);
      }
      result({ ok: true });
    } catch (e) {
      result({ ok: false, error: message(e) });
    }
  }
}
