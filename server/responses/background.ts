/**
 * `background: true` on /v1/responses: the response is kept as `queued` at once and answered
 * apart from the request that asked, on this control plane, while the client polls (GET), follows
 * its events (`stream`, or GET with `stream=true&starting_after=N`) or cancels it. A running one
 * holds a lease in the store, renewed as it runs; a control plane that stops (a restart, a crash)
 * stops renewing, and once the lease is past, the next look at the response marks it `failed`.
 * It is not resumed: the engine's half answer is gone with the process that read it.
 */
import { Hono } from "hono";
import type { Clock } from "../../core/clock.ts";
import type { Logger } from "../../core/log.ts";
import { AppError } from "../../core/errors.ts";
import { newUlid } from "../../core/ulid.ts";
import type { AppEnv } from "../app_env.ts";
import { errorResponse } from "../errors.ts";
import type { ApiKeyInfo } from "../keys/keys.ts";
import { dispatch, type DispatchDeps } from "../router/dispatch.ts";
import { isRecord } from "../router/json_fields.ts";
import { envelope, type ResponseContext } from "./response.ts";
import type { ResponseStore, StoredResponse } from "./response_store.ts";
import { translateStream } from "./stream.ts";

type Json = Record<string, unknown>;

export interface BackgroundDeps {
  dispatch: DispatchDeps;
  responses: Pick<ResponseStore, "put" | "end" | "renew">;
  clock: Clock;
  logger: Logger;
  /** How long a lease lasts; renewed every third of it. */
  leaseMs?: number;
}

export interface BackgroundJob {
  key: ApiKeyInfo;
  ctx: ResponseContext;
  /** The chat completions body (streamed: the events are what followers read). */
  body: Json;
  input: Json[];
  context: Json[];
}

/** One response's events as they came, for the clients that follow it. */
class EventLog {
  readonly events: string[] = [];
  done = false;
  #waiters: (() => void)[] = [];

  push(text: string): void {
    for (const block of text.split("\n\n")) if (block !== "") this.events.push(`${block}\n\n`);
    this.#wake();
  }

  close(): void {
    this.done = true;
    this.#wake();
  }

  async changed(): Promise<void> {
    await new Promise<void>((r) => this.#waiters.push(r));
  }

  #wake() {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }
}

/** Finished responses whose events stay here for a late `GET …?stream=true`. */
const keptLogs = 100;
const encoder = new TextEncoder();

export class BackgroundResponses {
  readonly #running = new Map<string, { abort: AbortController; log: EventLog }>();
  readonly #ended = new Map<string, EventLog>();
  readonly #jobs = new Map<string, BackgroundJob>();
  readonly #inner: Hono<AppEnv>;
  readonly #leaseMs: number;

  constructor(private readonly deps: BackgroundDeps) {
    this.#leaseMs = deps.leaseMs ?? 15_000;
    this.#inner = this.#innerApp();
  }

  /** Keeps the response as queued and starts answering it; the queued response object. */
  async start(job: BackgroundJob): Promise<Json> {
    const { ctx } = job;
    const queued = envelope(ctx, "queued", [], null);
    await this.deps.responses.put(job.key.id, ctx.id, {
      response: queued,
      input: job.input,
      context: job.context,
      leaseUntil: this.deps.clock.now() + this.#leaseMs,
    });
    const running = { abort: new AbortController(), log: new EventLog() };
    this.#running.set(ctx.id, running);
    this.#run(job, running).catch((e) => {
      // A cancel aborts the request under way; the response is already ended as cancelled.
      if (running.abort.signal.aborted) return;
      this.deps.logger.error("background response failed", { response: ctx.id, error: e });
      return this.#fail(ctx, { code: "server_error", message: "the response could not be run" })
        .catch(() => {});
    }).finally(() => {
      running.log.close();
      this.#running.delete(ctx.id);
      this.#ended.set(ctx.id, running.log);
      if (this.#ended.size > keptLogs) this.#ended.delete(this.#ended.keys().next().value!);
    });
    return queued;
  }

  /**
   * The response as it stands: one still marked running whose lease is past lost its control
   * plane, and is failed now (in the store, so every control plane sees the same).
   */
  async current(id: string, s: StoredResponse): Promise<Json> {
    const lease = s.leaseUntil ?? null;
    if (lease === null || lease >= this.deps.clock.now() || this.#running.has(id)) {
      return s.response;
    }
    const failed = {
      ...s.response,
      status: "failed",
      error: {
        code: "server_error",
        message: "the control plane running this response stopped before it was answered",
      },
    };
    return await this.deps.responses.end(id, failed, true) ? failed : s.response;
  }

  /** Cancels a running background response; one already ended is given back as it is. */
  async cancel(id: string, s: StoredResponse): Promise<Json> {
    if (s.response.background !== true) {
      throw new AppError("invalid_request", {
        detail: "only background responses can be cancelled, and this one was not",
      });
    }
    if ((s.leaseUntil ?? null) === null) return s.response;
    const cancelled = { ...s.response, status: "cancelled" };
    if (!await this.deps.responses.end(id, cancelled)) return s.response;
    // Running elsewhere, that control plane sees it at its next renewal and stops.
    this.#running.get(id)?.abort.abort();
    return cancelled;
  }

  /** Its events after `after` (a sequence number), while this control plane has them. */
  follow(id: string, after = -1): ReadableStream<Uint8Array> | undefined {
    const log = this.#running.get(id)?.log ?? this.#ended.get(id);
    if (!log) return undefined;
    let next = after + 1;
    return new ReadableStream<Uint8Array>({
      async pull(ctrl) {
        while (next >= log.events.length && !log.done) await log.changed();
        if (next >= log.events.length) return ctrl.close();
        const text = log.events.slice(next).join("");
        next = log.events.length;
        ctrl.enqueue(encoder.encode(text));
      },
    });
  }

  async #run(job: BackgroundJob, running: { abort: AbortController; log: EventLog }) {
    const { ctx } = job;
    const renewal = setInterval(() => {
      this.deps.responses.renew(ctx.id, this.deps.clock.now() + this.#leaseMs)
        .then((still) => still || running.abort.abort())
        .catch((e) => this.deps.logger.warn("lease renewal failed", { error: e }));
    }, Math.max(50, Math.floor(this.#leaseMs / 3)));
    const token = newUlid();
    this.#jobs.set(token, job);
    try {
      await this.deps.responses.renew(
        ctx.id,
        this.deps.clock.now() + this.#leaseMs,
        envelope(ctx, "in_progress", [], null),
      );
      const res = await this.#inner.request("/run", {
        method: "POST",
        headers: { "x-job": token },
        signal: running.abort.signal,
      });
      const type = res.headers.get("content-type") ?? "";
      if (!res.ok || !res.body || !type.includes("text/event-stream")) {
        await this.#fail(ctx, await errorOf(res));
        return;
      }
      let ended = false;
      const events = translateStream(res.body, ctx, async (final) => {
        ended = true;
        await this.deps.responses.end(ctx.id, final);
      });
      const decoder = new TextDecoder();
      for await (const chunk of events) {
        // A cancelled answer's last events (a cut stream's ending) are not what happened.
        if (running.abort.signal.aborted) break;
        running.log.push(decoder.decode(chunk, { stream: true }));
      }
      if (!ended && !running.abort.signal.aborted) {
        await this.#fail(ctx, { code: "server_error", message: "the engine failed" });
      }
    } finally {
      clearInterval(renewal);
      this.#jobs.delete(token);
    }
  }

  async #fail(ctx: ResponseContext, error: { code: string; message: string }) {
    await this.deps.responses.end(ctx.id, envelope(ctx, "failed", [], null, { error }));
  }

  /** dispatch() reads its request from a Hono context: the job gets one, its key the caller. */
  #innerApp(): Hono<AppEnv> {
    const app = new Hono<AppEnv>();
    app.post("/run", async (c) => {
      const job = this.#jobs.get(c.req.header("x-job") ?? "");
      if (!job) throw new AppError("not_found", { path: "background job" });
      c.set("requestId", newUlid());
      c.set("apiKey", job.key);
      return await dispatch(this.deps.dispatch, c, "/chat/completions", job.body, {
        endpoint: "/responses",
      });
    });
    app.onError((err, c) =>
      errorResponse(
        err instanceof AppError
          ? err
          : new AppError("internal_error", { requestId: c.get("requestId") ?? "" }),
        c.get("requestId"),
      )
    );
    return app;
  }
}

/** A refusal's OpenAI error body as the response's `error`. */
async function errorOf(res: Response): Promise<{ code: string; message: string }> {
  const body: unknown = await res.json().catch(() => ({}));
  const e = isRecord(body) && isRecord(body.error) ? body.error : {};
  return {
    code: typeof e.code === "string" ? e.code : "server_error",
    message: typeof e.message === "string" ? e.message : `status ${res.status}`,
  };
}
