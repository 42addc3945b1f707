/**
 * Delivers notifications to webhooks, off every request path: a bounded queue (the oldest are
 * dropped and counted when it is full), each delivery retried with exponential backoff, each
 * body signed with HMAC-SHA256 of the shared secret (`x-llmgw-signature: sha256=<hex>`) and
 * carrying a delivery id a receiver can use to drop a retried duplicate.
 *
 * A URL on Slack's domain, or prefixed `slack:`, gets Slack's `{"text": …}`; `json:` forces the
 * event's JSON (the default).
 */
import type { Logger } from "../../core/log.ts";

export interface NotificationEvent {
  /** `node_lost`, `node_back`, `replica_failed`, … */
  event: string;
  /** What it is about: a node's name, a replica id, a model, an endpoint, a level and subject. */
  subject: string;
  /** `firing` when an episode opens, `resolved` when it closes. */
  state: "firing" | "resolved";
  /** ISO time. */
  at: string;
  /** One id per episode: the firing and resolved events of one episode share it. */
  episode: string;
  summary: string;
  details: Record<string, string | number | boolean>;
}

export interface WebhookSenderOptions {
  urls: string[];
  /** Signing secret; empty sends no signature header. */
  secret: string;
  queueSize: number;
  maxAttempts: number;
  /** First retry delay; doubles each time. */
  backoffMs: number;
  timeoutMs: number;
  logger: Logger;
}

interface Delivery {
  id: string;
  url: string;
  event: NotificationEvent;
  attempt: number;
}

export class WebhookSender {
  readonly #queue: Delivery[] = [];
  #running = false;
  #closed = false;
  #wake: (() => void) | undefined;
  readonly #sleeps = new Set<{ timer: ReturnType<typeof setTimeout>; resolve: () => void }>();
  #idle = Promise.resolve();
  dropped = 0;
  delivered = 0;
  failed = 0;

  constructor(private readonly opts: WebhookSenderOptions) {}

  get pending(): number {
    return this.#queue.length;
  }

  send(event: NotificationEvent): void {
    if (this.#closed) return;
    for (const url of this.opts.urls) {
      this.#queue.push({ id: crypto.randomUUID(), url, event, attempt: 0 });
    }
    while (this.#queue.length > this.opts.queueSize) {
      const lost = this.#queue.shift()!;
      this.dropped++;
      this.opts.logger.warn("notification queue full; oldest dropped", {
        event: lost.event.event,
        subject: lost.event.subject,
      });
    }
    this.#kick();
  }

  #kick(): void {
    if (this.#running) return this.#wake?.();
    this.#running = true;
    this.#idle = this.#run().finally(() => (this.#running = false));
  }

  async #run(): Promise<void> {
    while (!this.#closed) {
      const d = this.#queue.shift();
      if (!d) return;
      const ok = await this.#deliver(d);
      if (ok) {
        this.delivered++;
        continue;
      }
      d.attempt++;
      if (d.attempt >= this.opts.maxAttempts) {
        this.failed++;
        this.opts.logger.error("notification not delivered; giving up", {
          event: d.event.event,
          subject: d.event.subject,
          url: safeUrl(d.url),
          attempts: d.attempt,
        });
        continue;
      }
      // Waits before retrying this one; others queued behind it wait too, keeping order.
      this.#queue.unshift(d);
      await this.#sleep(this.opts.backoffMs * 2 ** (d.attempt - 1));
    }
  }

  /** Sends a test event to every webhook now, once each, and reports each answer. */
  async test(event: NotificationEvent): Promise<{ url: string; ok: boolean; detail: string }[]> {
    return await Promise.all(this.opts.urls.map(async (raw) => {
      const r = await this.#post({ id: crypto.randomUUID(), url: raw, event, attempt: 0 });
      return { url: safeUrl(raw), ok: r.ok, detail: r.detail };
    }));
  }

  async #deliver(d: Delivery): Promise<boolean> {
    const r = await this.#post(d);
    if (r.ok) return true;
    this.opts.logger.warn("webhook did not take a notification; will retry", {
      url: safeUrl(d.url),
      detail: r.detail,
      attempt: d.attempt + 1,
    });
    return false;
  }

  async #post(d: Delivery): Promise<{ ok: boolean; detail: string }> {
    const { url, slack } = target(d.url);
    const body = JSON.stringify(
      slack
        ? { text: `[llmgw] ${d.event.state === "resolved" ? "✅" : "⚠️"} ${d.event.summary}` }
        : d.event,
    );
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "x-llmgw-event": d.event.event,
      "x-llmgw-delivery": d.id,
    };
    if (this.opts.secret) {
      headers["x-llmgw-signature"] = `sha256=${await hmac(this.opts.secret, body)}`;
    }
    try {
      const res = await fetch(url, {
        method: "POST",
        headers,
        body,
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
      await res.body?.cancel();
      return { ok: res.ok, detail: `HTTP ${res.status}` };
    } catch (e) {
      return { ok: false, detail: `unreachable: ${(e as Error).message}` };
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          this.#sleeps.delete(entry);
          resolve();
        }, ms),
        resolve,
      };
      this.#sleeps.add(entry);
    });
  }

  /** Waits up to `graceMs` for the queue to drain, then stops (what is left is logged). */
  async close(graceMs = 2_000): Promise<void> {
    const drained = (async () => {
      while (this.#queue.length > 0 && this.#running) await this.#idle;
    })();
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([drained, new Promise((r) => (timer = setTimeout(r, graceMs)))]);
    clearTimeout(timer);
    this.#closed = true;
    for (const s of this.#sleeps) {
      clearTimeout(s.timer);
      s.resolve();
    }
    this.#sleeps.clear();
    await this.#idle;
    if (this.#queue.length) {
      this.opts.logger.warn("notifications not sent at shutdown", { count: this.#queue.length });
    }
  }
}

function target(raw: string): { url: string; slack: boolean } {
  if (raw.startsWith("slack:")) return { url: raw.slice(6), slack: true };
  if (raw.startsWith("json:")) return { url: raw.slice(5), slack: false };
  let slack = false;
  try {
    const u = new URL(raw);
    slack = u.hostname === "hooks.slack.com" || u.pathname.endsWith("/slack");
  } catch {
    // Refused at start (notify settings); nothing to detect here.
  }
  return { url: raw, slack };
}

/** A webhook URL may carry a token in its path or query: logs show only its origin. */
function safeUrl(raw: string): string {
  try {
    return new URL(target(raw).url).origin;
  } catch {
    return "(invalid URL)";
  }
}

export async function hmac(secret: string, body: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const sig = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(body));
  return [...new Uint8Array(sig)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** What the admin API's test button needs of the sender. */
export type WebhookTester = Pick<WebhookSender, "test">;

/** No webhooks are set: a test reaches no one. */
export const noWebhooks: WebhookTester = { test: () => Promise.resolve([]) };
