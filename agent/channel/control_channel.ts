/**
 * The agent's end of the control channel: one WebSocket over TLS to a control plane, trusting the
 * cluster CA only, the credential in the upgrade's Authorization header (never the URL). When the
 * connection fails or falls silent (see Liveness) it reconnects with backoff and jitter, trying
 * each control plane it was given in turn. A standby sends it on (`notLeaderCloseCode`): it tries
 * the next at once, so a node finds a new leader as soon as there is one. A credential the
 * control plane refuses (the node was removed) ends the channel: retrying would only be refused
 * again.
 */
import type { Logger } from "../../core/log.ts";
import { Liveness } from "../../core/protocol/liveness.ts";
import {
  type AgentMessage,
  decodeMessage,
  type ServerMessage,
  serverMessageSchema,
} from "../../core/protocol/messages.ts";
import { backoffDelay, wakeableSleep } from "../../core/backoff_delay.ts";
import { notLeaderCloseCode } from "../../core/protocol/close_codes.ts";

export interface ChannelOptions {
  urls: string[];
  credential: string;
  caPem: string;
  logger: Logger;
  idleMs: number;
  answerMs: number;
  reconnectBaseMs?: number;
  reconnectMaxMs: number;
  /** The first message on every connection. */
  hello(): AgentMessage;
  onMessage(msg: ServerMessage): void;
  onConnected?(url: string): void;
  onDisconnected?(): void;
  /** The control plane refused the credential: this node was removed. */
  onRevoked(reason: string): void;
}

/** How one connection ended. */
interface Outcome {
  kind: "was_open" | "failed" | "revoked" | "not_leader";
  reason: string;
}

/** Close code the control plane uses for a removed node. */
export const revokedCloseCode = 4401;

export class ControlChannel {
  readonly #o: ChannelOptions;
  readonly #client: Deno.HttpClient;
  #socket: WebSocket | undefined;
  /** The connection this node left on its own (a deposed leader's), and why. */
  #left: { socket: WebSocket; reason: string } | undefined;
  #stopped = false;
  #wake: (() => void) | undefined;
  #loop: Promise<void> | undefined;

  constructor(opts: ChannelOptions) {
    this.#o = opts;
    this.#client = Deno.createHttpClient({ caCerts: [opts.caPem] });
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  get connected(): boolean {
    return this.#socket?.readyState === WebSocket.OPEN;
  }

  /** Sends if connected; a message sent while disconnected is dropped (heartbeats resend state). */
  send(msg: AgentMessage): boolean {
    const s = this.#socket;
    if (!s || s.readyState !== WebSocket.OPEN) return false;
    try {
      s.send(JSON.stringify(msg));
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Leaves the control plane connected now for the next one, at once, as a standby's close
   * would: it answered as a leader that it no longer is.
   */
  leave(reason: string): void {
    const s = this.#socket;
    if (!s) return;
    this.#left = { socket: s, reason };
    try {
      s.close(notLeaderCloseCode, reason.slice(0, 120));
    } catch {
      // Already closed.
    }
  }

  /**
   * `restarting`: the agent goes but leaves its engines running for the next one, so the control
   * plane keeps them in routing for its grace instead of forgetting them at once.
   */
  async close(how: "stopping" | "restarting" = "stopping"): Promise<void> {
    this.#stopped = true;
    this.#wake?.();
    try {
      this.#socket?.close(1000, `agent ${how}`);
    } catch {
      // Already closed.
    }
    await this.#loop;
    this.#client.close();
  }

  async #run(): Promise<void> {
    const { urls, logger } = this.#o;
    let failures = 0;
    for (let i = 0; !this.#stopped; i++) {
      const url = urls[i % urls.length]!;
      const outcome = await this.#connectOnce(url);
      if (this.#stopped) break;
      if (outcome.kind === "revoked") {
        this.#stopped = true;
        this.#o.onRevoked(outcome.reason);
        break;
      }
      failures = outcome.kind === "failed" ? failures + 1 : 1;
      const delay = backoffDelay(failures, this.#o.reconnectBaseMs ?? 250, this.#o.reconnectMaxMs);
      if (outcome.kind === "not_leader") {
        logger.info("that control plane is a standby; trying the next", { url });
      } else {
        logger.warn("control channel down; reconnecting", {
          url,
          reason: outcome.reason,
          next: urls[(i + 1) % urls.length],
          inMs: Math.round(delay),
        });
      }
      const sleep = wakeableSleep(delay);
      this.#wake = sleep.wake;
      await sleep.done;
    }
  }

  /** One connection, from dial to close. */
  #connectOnce(
    url: string,
  ): Promise<Outcome> {
    const { promise, resolve } = Promise.withResolvers<Outcome>();
    let socket: WebSocket;
    try {
      socket = new WebSocket(`${url.replace(/^http/, "ws")}/cluster/v1/channel`, {
        client: this.#client,
        headers: { authorization: `Bearer ${this.#o.credential}` },
      });
    } catch (e) {
      return Promise.resolve({ kind: "failed", reason: (e as Error).message });
    }
    this.#socket = socket;
    let opened = false;
    let liveness: Liveness | undefined;
    socket.onopen = () => {
      opened = true;
      liveness = new Liveness({
        idleMs: this.#o.idleMs,
        answerMs: this.#o.answerMs,
        sendPing: (id) => this.send({ type: "ping", id }),
        onDead: () => {
          this.#o.logger.warn("control plane did not answer a ping; reconnecting", { url });
          try {
            socket.close(4000, "no answer to ping");
          } catch {
            // Already closed.
          }
          // A dead peer never completes the closing handshake: do not wait for it.
          finish("no answer to ping");
        },
      });
      // Each connection may reach another control plane (a failover, an upgrade).
      this.send(this.#o.hello());
      this.#o.logger.info("control channel connected", { url });
      this.#o.onConnected?.(url);
    };
    socket.onmessage = (e) => {
      liveness?.heard();
      const decoded = decodeMessage<ServerMessage>(serverMessageSchema, e.data);
      if (!decoded.ok) {
        this.#o.logger.warn("dropped an invalid message from the control plane", {
          reason: decoded.reason,
        });
        return;
      }
      if (decoded.message.type === "ping") {
        this.send({ type: "pong", id: decoded.message.id });
        return;
      }
      this.#o.onMessage(decoded.message);
    };
    socket.onerror = () => {};
    let done = false;
    const finish = (reason: string, code?: number) => {
      if (done) return;
      done = true;
      liveness?.stop();
      if (this.#socket === socket) this.#socket = undefined;
      if (opened) this.#o.onDisconnected?.();
      if (code === revokedCloseCode) return resolve({ kind: "revoked", reason });
      if (code === notLeaderCloseCode) return resolve({ kind: "not_leader", reason });
      if (this.#left?.socket === socket) {
        return resolve({ kind: "not_leader", reason: this.#left.reason });
      }
      if (opened) return resolve({ kind: "was_open", reason });
      // The WebSocket API hides the upgrade's status: ask whether the credential is refused.
      this.#credentialRefused(url).then((refused) =>
        resolve(refused ? { kind: "revoked", reason: refused } : { kind: "failed", reason })
      );
    };
    socket.onclose = (e) => finish(e.reason || `closed (${e.code})`, e.code);
    return promise;
  }

  async #credentialRefused(url: string): Promise<string | undefined> {
    try {
      const res = await fetch(`${url}/cluster/v1/whoami`, {
        client: this.#client,
        headers: { authorization: `Bearer ${this.#o.credential}` },
        signal: AbortSignal.timeout(5_000),
      });
      if (res.status !== 401) {
        await res.body?.cancel();
        return undefined;
      }
      const body = await res.json().catch(() => ({})) as { error?: { message?: string } };
      return body.error?.message ?? "the control plane refused this node's credential";
    } catch {
      return undefined;
    }
  }
}
