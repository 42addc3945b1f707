/**
 * Runs the lines of the batches in progress, in the models' batch band: a line is sent only
 * while every replica keeps `batches.interactive_slots` free for interactive traffic, so a batch
 * never takes a replica's last slot. Each line goes through the same dispatch() as a client's
 * request (the `batch` routing profile; limits, budgets and usage rows as for any request), and
 * its answer is written to its row at once, with the line's usage row in the same transaction
 * (not through the recorder's buffer). The store is the only state: after a restart the lines
 * without an answer run again, and the output file is built from the rows, one per custom_id; a
 * line in flight at a crash may be sent again, but its usage row, and so its charge, is written
 * once, with the one answer kept.
 */
import { type Context, Hono } from "hono";
import { and, eq, inArray, isNull } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import type { Logger } from "../../core/log.ts";
import { AppError } from "../../core/errors.ts";
import { newUlid } from "../../core/ulid.ts";
import type { Store } from "../../db/store.ts";
import { batches, batchLines } from "../../db/schema.ts";
import type { AppEnv } from "../app_env.ts";
import { errorResponse } from "../errors.ts";
import type { ApiKeyInfo, KeyService } from "../keys/keys.ts";
import { dispatch, type DispatchDeps, type EnginePath } from "../router/dispatch.ts";
import { toChatRequest } from "../responses/request.ts";
import { type ResponseContext, toResponse } from "../responses/response.ts";
import type { FileStore } from "../files/file_store.ts";
import type { UsageRow, UsageSink } from "../usage/recorder.ts";
import { insertUsageRows } from "../usage/insert_usage_rows.ts";
import { addToDaily } from "../usage/daily.ts";

type Row = typeof batches.$inferSelect;
type Line = typeof batchLines.$inferSelect;

export interface BatchRunnerDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  keys: Pick<KeyService, "get">;
  files: Pick<FileStore, "create">;
  dispatch: DispatchDeps;
  /** The recorder, for the rows of a line that is not answered yet (a 429 it waits out). */
  usage: UsageSink;
  settings: { readonly batchInteractiveSlots: number; readonly batchPricePercent: number };
}

const newId = (prefix: string) => `${prefix}_${newUlid().toLowerCase()}`;
/** How often batches are looked for while there are none. */
const idleEveryMs = 2_000;

/** Lines one look may start per batch; the next look (a line's end starts one) takes more. */
const linesPerStep = 16;

export class BatchRunner {
  /** `${batchId}\n${customId}` of the lines being answered now. */
  readonly #inFlight = new Map<string, string>();
  /** Lines in flight per model, to keep within the band. */
  readonly #perModel = new Map<string, number>();
  readonly #jobs = new Map<
    string,
    { key: ApiKeyInfo; path: string; body: Record<string, unknown>; rows: UsageRow[] }
  >();
  readonly #inner: Hono<AppEnv>;
  /** Batch id → the clock time before which it sends no more lines (after a 429 or 503). */
  readonly #notBefore = new Map<string, number>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;
  /** The last look found no batch: none before this (monotonic ms; CPU, not product time). */
  #idleUntil = 0;

  constructor(private readonly deps: BatchRunnerDeps) {
    this.#inner = this.#innerApp();
  }

  /** Looks for work every `everyMs`, and at once when a line ends. */
  start(everyMs = 250): void {
    this.#stopped = false;
    this.#timer = setInterval(() => this.#kick(), everyMs);
    this.#kick();
  }

  /** Stops starting lines; those in flight finish (their answers are kept). */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    while (this.#inFlight.size > 0 || this.#running) {
      await (this.#running ?? new Promise((r) => setTimeout(r, 20)));
    }
  }

  #kick(): void {
    if (this.#running || this.#stopped) return;
    if (performance.now() < this.#idleUntil) return;
    this.#running = this.runOnce()
      .catch((e) => this.deps.logger.error("batch runner step failed", { error: e }))
      .finally(() => (this.#running = undefined));
  }

  /** One look at every batch in progress: start what the band allows, finish what is done. */
  async runOnce(): Promise<void> {
    const rows = await this.deps.store.db.select().from(batches)
      .where(inArray(batches.status, ["in_progress", "cancelling", "finalizing"]));
    // Nothing to do is the usual case: four store reads a second for it were most of an idle
    // appliance's work. A new batch waits at most this long for its first line.
    this.#idleUntil = rows.length === 0 ? performance.now() + idleEveryMs : 0;
    for (const b of rows) {
      if (this.#stopped) return;
      await this.#step(b);
    }
  }

  async #step(b: Row): Promise<void> {
    const inFlight = [...this.#inFlight.values()].filter((id) => id === b.id).length;
    const busy = inFlight > 0;
    if (b.status === "cancelling") {
      if (!busy) await this.#finish(b, "cancelled");
      return;
    }
    if (this.deps.clock.now() > b.expiresAt) {
      if (!busy) await this.#finish(b, "expired");
      return;
    }
    const todo = await this.deps.store.db.select().from(batchLines)
      .where(and(eq(batchLines.batchId, b.id), isNull(batchLines.status)))
      // Only as many as could start now: those in flight still read as unanswered.
      .orderBy(batchLines.line).limit(inFlight + linesPerStep);
    const waiting = todo.filter((l) => !this.#inFlight.has(lineKey(l)));
    if (todo.length === 0) {
      if (!busy) await this.#finish(b, "completed");
      return;
    }
    if ((this.#notBefore.get(b.id) ?? 0) > this.deps.clock.now()) return;
    const key = await this.deps.keys.get(b.keyId);
    for (const line of waiting) {
      if (this.#stopped) return;
      const model = String(line.body.model ?? "");
      if (this.#room(model) <= 0) continue;
      this.#launch(b, line, model, key);
    }
  }

  /** Lines this model's replicas may take now without touching the interactive reserve. */
  #room(model: string): number {
    const mine = this.#perModel.get(model) ?? 0;
    if (!this.deps.dispatch.catalog.get(model)) return mine === 0 ? 1 : 0;
    const reserve = this.deps.settings.batchInteractiveSlots;
    let band = 0;
    let inFlight = 0;
    for (const r of this.deps.dispatch.replicas.forModel(model)) {
      if (r.state !== "ready") continue;
      band += r.external ? 4 : Math.max(0, r.slots - reserve);
      inFlight += r.inFlight;
    }
    const interactive = Math.max(0, inFlight - mine);
    return band - interactive - mine;
  }

  #launch(b: Row, line: Line, model: string, key: ApiKeyInfo | undefined): void {
    const k = lineKey(line);
    this.#inFlight.set(k, b.id);
    this.#perModel.set(model, (this.#perModel.get(model) ?? 0) + 1);
    const done = () => {
      this.#inFlight.delete(k);
      this.#perModel.set(model, (this.#perModel.get(model) ?? 1) - 1);
      this.#kick();
    };
    this.#answer(b, line, key).then(done, (e) => {
      this.deps.logger.error("batch line failed", { batch: b.id, error: e });
      done();
    });
  }

  async #answer(b: Row, line: Line, key: ApiKeyInfo | undefined): Promise<void> {
    let status: number;
    let result: unknown;
    let requestId: string | null = null;
    let retryAfterS: string | null = null;
    const rows: UsageRow[] = [];
    if (!key || key.revokedAt !== null) {
      status = 401;
      result = {
        error: { message: "the batch's API key is no longer valid", type: "invalid_request_error" },
      };
    } else {
      const token = newUlid();
      this.#jobs.set(token, {
        key,
        path: b.endpoint,
        body: { ...line.body, stream: false },
        rows,
      });
      try {
        const res = await this.#inner.request("/run", {
          method: "POST",
          headers: { "x-job": token },
        });
        status = res.status;
        requestId = res.headers.get("x-request-id");
        retryAfterS = res.headers.get("retry-after");
        const text = await res.text();
        try {
          result = JSON.parse(text);
        } catch {
          result = { error: { message: text || `status ${status}`, type: "server_error" } };
        }
      } finally {
        this.#jobs.delete(token);
      }
    }
    // A rate limit or a full queue is a wait, not an answer: the line stays unanswered and the
    // batch waits as long as the refusal says before it sends more.
    if (status === 429 || status === 503) {
      for (const row of rows) this.deps.usage.record(row);
      const retry = Number(retryAfterS ?? 1);
      this.#notBefore.set(
        b.id,
        this.deps.clock.now() + 1000 * (Number.isFinite(retry) ? retry : 1),
      );
      return;
    }
    // A line already answered (a second runner) keeps its first answer, and only that answer's
    // usage is written: the line is charged once.
    const usageRows = rows.map((r) => ({ id: newUlid(r.at), ...r }));
    await this.deps.store.write(async (tx) => {
      const answered = await tx.update(batchLines).set({ status, result, requestId })
        .where(and(
          eq(batchLines.batchId, line.batchId),
          eq(batchLines.customId, line.customId),
          isNull(batchLines.status),
        )).returning({ line: batchLines.line });
      if (answered.length === 0) return;
      await insertUsageRows(this.deps.store, tx, usageRows);
      await addToDaily(tx, usageRows);
    });
  }

  /** Output and error files from the rows, one line per custom_id, then the final status. */
  async #finish(b: Row, status: "completed" | "expired" | "cancelled"): Promise<void> {
    const now = this.deps.clock.now();
    await this.deps.store.write((tx) =>
      tx.update(batches).set({ status: "finalizing", finalizingAt: b.finalizingAt ?? now })
        .where(eq(batches.id, b.id))
    );
    const lines = await this.deps.store.db.select().from(batchLines)
      .where(eq(batchLines.batchId, b.id)).orderBy(batchLines.line);
    const ok: string[] = [];
    const failed: string[] = [];
    for (const l of lines) {
      if (l.status === null) {
        if (status === "completed") continue;
        failed.push(
          outputLine(l, null, {
            code: `batch_${status}`,
            message: `the batch was ${status} first`,
          }),
        );
      } else if (l.status >= 200 && l.status < 300) ok.push(outputLine(l, l.status, null));
      else failed.push(outputLine(l, l.status, null));
    }
    const key = await this.deps.keys.get(b.keyId);
    const owner = { keyId: b.keyId, projectId: key?.projectId ?? null };
    const write = async (rows: string[], name: string) =>
      rows.length === 0 ? null : (await this.deps.files.create(owner, {
        purpose: "batch_output",
        filename: `${b.id}_${name}.jsonl`,
        bytes: new TextEncoder().encode(rows.join("\n") + "\n"),
      })).id;
    const outputFileId = await write(ok, "output");
    const errorFileId = await write(failed, "error");
    const at = this.deps.clock.now();
    await this.deps.store.write((tx) =>
      tx.update(batches).set({
        status,
        outputFileId,
        errorFileId,
        ...(status === "completed" ? { completedAt: at } : {}),
        ...(status === "expired" ? { expiredAt: at } : {}),
        ...(status === "cancelled" ? { cancelledAt: at } : {}),
      }).where(eq(batches.id, b.id))
    );
  }

  /**
   * dispatch() reads its request from a Hono context; the batch's lines get one of their own,
   * with the batch's key as the caller, so they are routed, limited and recorded as any request.
   */
  #innerApp(): Hono<AppEnv> {
    const app = new Hono<AppEnv>();
    app.post("/run", async (c) => {
      const job = this.#jobs.get(c.req.header("x-job") ?? "");
      if (!job) throw new AppError("not_found", { path: "batch job" });
      const requestId = newUlid();
      c.set("requestId", requestId);
      c.set("apiKey", job.key);
      c.header("x-request-id", requestId);
      const res = job.path === "/v1/responses"
        ? await this.#responses(c, job.body, job.rows)
        : await dispatch(this.deps.dispatch, c, job.path.slice(3) as EnginePath, job.body, {
          profile: "batch",
          usage: { record: (row) => job.rows.push(row) },
          pricePercent: this.#pricePercent(job.body.model),
        });
      res.headers.set("x-request-id", requestId);
      return res;
    });
    app.onError((err, c) => {
      const res = err instanceof AppError
        ? errorResponse(err, c.get("requestId"))
        : errorResponse(new AppError("internal_error", { requestId: c.get("requestId") ?? "" }));
      res.headers.set("x-request-id", c.get("requestId") ?? "");
      return res;
    });
    return app;
  }

  /** The model's own batch price (a share of its prices), else the setting's. */
  #pricePercent(model: unknown): number {
    const entry = this.deps.dispatch.catalog.get(String(model ?? ""));
    return entry?.priceBatchPercent ?? this.deps.settings.batchPricePercent;
  }

  async #responses(
    c: Context<AppEnv>,
    body: Record<string, unknown>,
    rows: UsageRow[],
  ) {
    const req = { ...body, stream: false };
    const t = toChatRequest(req, [], newId);
    if (t.fileSearch) {
      throw new AppError("invalid_request", {
        detail:
          "the file_search tool is not run in batches: search first with /v1/kb/{collection}/search",
      }, "tools");
    }
    const ctx: ResponseContext = {
      id: newId("resp"),
      createdAt: Math.floor(this.deps.clock.now() / 1000),
      req,
      summary: t.summary,
      newId,
    };
    const res = await dispatch(this.deps.dispatch, c, "/chat/completions", t.body, {
      profile: "batch",
      endpoint: "/responses",
      usage: { record: (row) => rows.push(row) },
      pricePercent: this.#pricePercent(body.model),
    });
    if (!res.ok) return res;
    return Response.json(toResponse(await res.json(), ctx));
  }
}

function lineKey(l: Pick<Line, "batchId" | "customId">): string {
  return `${l.batchId}\n${l.customId}`;
}

/** OpenAI's batch output line. */
function outputLine(
  l: Line,
  status: number | null,
  error: { code: string; message: string } | null,
): string {
  return JSON.stringify({
    id: `batch_req_${l.batchId.slice(6)}_${l.line}`,
    custom_id: l.customId,
    response: status === null
      ? null
      : { status_code: status, request_id: l.requestId, body: l.result },
    error,
  });
}
