/**
 * What is worth telling someone, sent once per episode. An episode opens with the first event
 * about a thing (a node, a replica, a model, a disk) and closes when the condition clears (the
 * node is back, the replica ready, the model servable, the disk has room); the closing sends one
 * `resolved` message. Events with no clear signal of their own (a budget reached, a provider key
 * refused) close quietly after `quietMs` without a repeat. So a budget refusing a thousand
 * requests, or a node lost across a hundred heartbeats, is one message.
 *
 * Replicas are judged per model: a model's `replica_failed` episode opens with the first replica
 * that fails or stops answering (with the engine's last output lines) and ends when one of its
 * replicas becomes ready again, so a crash loop, whose every retry is a new replica, is one
 * episode. Planned changes say nothing: a replica stopped (an eviction, a drain, a stop) is no
 * failure, and `model_unservable` is only for a model the catalog wants served at all times
 * (`wanted`), not one on demand that was evicted while idle, nor one stopped or removed.
 */
import { ulid } from "ulid";
import type { Clock } from "../../core/clock.ts";
import type { Logger } from "../../core/log.ts";
import type { DiskFree } from "../../core/protocol/host_report.ts";
import type { ReplicaTable } from "../router/replicas.ts";
import type { NotificationEvent } from "./webhook_sender.ts";

export type NotifyEvent =
  | "node_lost"
  | "replica_failed"
  | "model_unservable"
  | "budget_reached"
  | "external_key_refused"
  | "disk_low"
  | "directory_sync_refused";

/** What an episode's end is called. */
const resolvedName: Record<NotifyEvent, string> = {
  node_lost: "node_back",
  replica_failed: "replica_recovered",
  model_unservable: "model_servable",
  budget_reached: "budget_reached",
  external_key_refused: "external_key_refused",
  disk_low: "disk_ok",
  directory_sync_refused: "directory_sync_ok",
};

/** Events that never clear by themselves: their episode ends after a quiet spell. */
const quietClosing = new Set<NotifyEvent>(["budget_reached", "external_key_refused"]);

interface Episode {
  id: string;
  openedAt: number;
  lastSeen: number;
}

export interface NotifierOptions {
  send: (e: NotificationEvent) => void;
  clock: Clock;
  logger: Logger;
  /** How long a budget or key episode stays open without a repeat. */
  quietMs: number;
  /** A node disk with less free than this is low. */
  diskLowBytes: number;
  /** Read for models that had a ready replica and have none now. */
  replicas?: ReplicaTable;
  /** How often the model and quiet-window checks run. */
  tickMs?: number;
}

export class Notifier {
  readonly #open = new Map<string, Episode>();
  readonly #everServable = new Set<string>();
  /** Each replica's last reported state (node/replica), so only a change to ready ends an episode. */
  readonly #replicaStates = new Map<string, string>();
  readonly #timer: ReturnType<typeof setInterval>;
  sent = 0;
  /** Whether the catalog wants `model` served at all times (set once the catalog is loaded). */
  wanted: (model: string) => boolean = () => true;

  constructor(private readonly opts: NotifierOptions) {
    this.#timer = setInterval(() => this.tick(), opts.tickMs ?? 1_000);
  }

  /** Fires once per episode; later calls in the same episode only keep it open. */
  open(
    event: NotifyEvent,
    subject: string,
    summary: string,
    details: NotificationEvent["details"] = {},
  ): void {
    const k = `${event}\u0000${subject}`;
    const now = this.opts.clock.now();
    const ep = this.#open.get(k);
    if (ep) {
      ep.lastSeen = now;
      return;
    }
    const episode = { id: ulid(), openedAt: now, lastSeen: now };
    this.#open.set(k, episode);
    this.#emit(event, subject, "firing", episode.id, summary, details);
  }

  /** Closes the episode, if one is open, with one `resolved` message. */
  clear(
    event: NotifyEvent,
    subject: string,
    summary: string,
    details: NotificationEvent["details"] = {},
  ): void {
    const k = `${event}\u0000${subject}`;
    const ep = this.#open.get(k);
    if (!ep) return;
    this.#open.delete(k);
    this.#emit(resolvedName[event], subject, "resolved", ep.id, summary, {
      ...details,
      lasted_ms: this.opts.clock.now() - ep.openedAt,
    });
  }

  isOpen(event: NotifyEvent, subject: string): boolean {
    return this.#open.has(`${event}\u0000${subject}`);
  }

  // ---- the sources ----

  nodeLost(node: string, reason: string): void {
    this.open("node_lost", node, `node ${node} lost (${reason})`, { node, reason });
  }

  nodeBack(node: string): void {
    this.clear("node_lost", node, `node ${node} is back`, { node });
  }

  replica(
    node: string,
    replica: { replicaId: string; model: string; state: string; error?: string | undefined },
  ): void {
    const key = `${node}/${replica.replicaId}`;
    const before = this.#replicaStates.get(key);
    if (replica.state === "stopped") this.#replicaStates.delete(key);
    else this.#replicaStates.set(key, replica.state);
    if (before === replica.state) return;
    const model = replica.model;
    if (replica.state === "failed" || replica.state === "unhealthy") {
      const what = replica.state === "failed" ? "failed" : "stopped answering its health check";
      this.open("replica_failed", model, `replica ${key} of ${model} ${what}`, {
        node,
        replica: replica.replicaId,
        model,
        // The agent's sentence and the engine's last lines; never a key (engines get theirs by
        // environment and file, and the agent redacts it from what they print).
        ...(replica.error ? { error: lastLines(replica.error) } : {}),
      });
    } else if (replica.state === "ready") {
      this.clear("replica_failed", model, `model ${model} has a ready replica again (${key})`, {
        node,
        replica: replica.replicaId,
        model,
      });
    }
  }

  disks(node: string, disks: readonly DiskFree[]): void {
    for (const d of disks) {
      const subject = `${node}:${d.purpose}`;
      if (d.freeBytes < this.opts.diskLowBytes) {
        this.open("disk_low", subject, `disk for ${d.purpose} on ${node} is low`, {
          node,
          purpose: d.purpose,
          path: d.path,
          free_bytes: d.freeBytes,
        });
      } else {
        this.clear("disk_low", subject, `disk for ${d.purpose} on ${node} has room again`, {
          node,
          purpose: d.purpose,
          free_bytes: d.freeBytes,
        });
      }
    }
  }

  /** A spending budget refused a request (called by the limits code). */
  budgetReached(level: string, subject: string): void {
    this.open("budget_reached", `${level}:${subject}`, `budget reached for ${level} ${subject}`, {
      level,
      subject,
    });
  }

  /** An outside provider answered 401 for one of its keys (names the endpoint, never the key). */
  keyRefused(endpoint: string): void {
    this.open("external_key_refused", endpoint, `outside provider refused key ${endpoint}`, {
      endpoint,
    });
  }

  /**
   * The directory's sync changed nothing: it would have suspended more than half the accounts,
   * or the directory could not be read. The episode ends with the next sync that applies.
   */
  directorySyncRefused(reason: string, details: NotificationEvent["details"] = {}): void {
    this.open("directory_sync_refused", "ldap", `directory sync refused: ${reason}`, {
      reason,
      ...details,
    });
  }

  directorySynced(): void {
    this.clear("directory_sync_refused", "ldap", "directory sync applies again");
  }

  /** A live settings change. */
  configure(o: { quietMs?: number; diskLowBytes?: number }): void {
    if (o.quietMs !== undefined) this.opts.quietMs = o.quietMs;
    if (o.diskLowBytes !== undefined) this.opts.diskLowBytes = o.diskLowBytes;
  }

  /** A replica of `model` became ready (called as it happens, so a brief one counts). */
  modelReady(model: string): void {
    this.#everServable.add(model);
    this.clear("model_unservable", model, `model ${model} can be served again`, { model });
  }

  tick(): void {
    const now = this.opts.clock.now();
    for (const [k, ep] of this.#open) {
      const event = k.split("\u0000")[0] as NotifyEvent;
      if (quietClosing.has(event) && now - ep.lastSeen >= this.opts.quietMs) this.#open.delete(k);
    }
    const replicas = this.opts.replicas;
    if (!replicas) return;
    const models = new Set([...this.#everServable, ...replicas.list().map((r) => r.model)]);
    for (const model of models) {
      const ready = replicas.forModel(model).some((r) => r.state === "ready");
      if (ready) {
        this.#everServable.add(model);
        this.clear("model_unservable", model, `model ${model} can be served again`, { model });
      } else if (!this.wanted(model)) {
        // Evicted while idle, stopped or removed: nobody is to be told, and once it is wanted
        // again it has to be served before its absence counts.
        this.#everServable.delete(model);
        this.clear("model_unservable", model, `model ${model} is no longer expected to be served`, {
          model,
        });
      } else if (this.#everServable.has(model)) {
        this.open("model_unservable", model, `model ${model} has no ready replica`, { model });
      }
    }
  }

  #emit(
    event: string,
    subject: string,
    state: "firing" | "resolved",
    episode: string,
    summary: string,
    details: NotificationEvent["details"],
  ): void {
    this.sent++;
    this.opts.logger.info("notification", { event, subject, state });
    this.opts.send({
      event,
      subject,
      state,
      at: new Date(this.opts.clock.now()).toISOString(),
      episode,
      summary,
      details,
    });
  }

  close(): void {
    clearInterval(this.#timer);
  }
}

/** The first line (the reason) and the last lines of what the agent said, bounded. */
export function lastLines(error: string, lines = 12, max = 1500): string {
  const all = error.trimEnd().split("\n");
  const text = all.length <= lines + 1
    ? all.join("\n")
    : [all[0], "…", ...all.slice(-lines)].join("\n");
  return text.length <= max ? text : "…" + text.slice(-(max - 1));
}
