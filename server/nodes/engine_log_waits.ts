/**
 * `engine_log` requests waiting for their node's `engine_log_lines`. An agent that cannot parse
 * the request drops it unanswered, and so may a busy or dying one: each wait ends on its own
 * after `answerMs`, and when its node's channel goes.
 */
import type { EngineLogLines } from "../../core/protocol/messages.ts";

/** What a node said of a replica's log; the admin API's body is made from it. */
export type EngineLogAnswer =
  | { status: "ok"; node: string; lines: string[]; adopted: boolean }
  /** Its agent did not say it answers `engine_log` (a release before it). */
  | { status: "agent_too_old"; node: string; version: string | null }
  | { status: "not_connected" | "no_answer"; node: string };

interface Wait {
  nodeId: string;
  node: string;
  resolve: (a: EngineLogAnswer) => void;
  timer: ReturnType<typeof setTimeout>;
}

export class EngineLogWaits {
  readonly #waits = new Map<string, Wait>();

  constructor(private readonly answerMs: number) {}

  /** Registers request `id` to `nodeId` (named `node`); resolves with its answer or `no_answer`. */
  wait(id: string, nodeId: string, node: string): Promise<EngineLogAnswer> {
    const { promise, resolve } = Promise.withResolvers<EngineLogAnswer>();
    const timer = setTimeout(() => this.#end(id, { status: "no_answer", node }), this.answerMs);
    this.#waits.set(id, { nodeId, node, resolve, timer });
    return promise;
  }

  /** A node's answer; one for a request not waited on (late, or another node's) is ignored. */
  answered(nodeId: string, msg: EngineLogLines): void {
    const w = this.#waits.get(msg.id);
    if (!w || w.nodeId !== nodeId) return;
    this.#end(msg.id, {
      status: "ok",
      node: w.node,
      lines: msg.found ? msg.lines : [],
      adopted: msg.adopted === true,
    });
  }

  /** The node's channel went: its waits end as not connected. */
  gone(nodeId: string): void {
    for (const [id, w] of this.#waits) {
      if (w.nodeId === nodeId) this.#end(id, { status: "not_connected", node: w.node });
    }
  }

  #end(id: string, answer: EngineLogAnswer): void {
    const w = this.#waits.get(id);
    if (!w) return;
    this.#waits.delete(id);
    clearTimeout(w.timer);
    w.resolve(answer);
  }
}
