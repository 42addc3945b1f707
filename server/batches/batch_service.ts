/**
 * The batches of /v1/batches as records: creating one reads and checks its input file (OpenAI's
 * JSONL of requests, each with a unique custom_id) into one row per line, so the runner's
 * progress is in the store and survives a restart; retrieve, list and cancel read and move the
 * status. Per key: another key's batch is not found.
 */
import { and, count, desc, eq, isNotNull, sql } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import { AppError } from "../../core/errors.ts";
import { newUlid } from "../../core/ulid.ts";
import type { Store } from "../../db/store.ts";
import { batches, batchLines } from "../../db/schema.ts";
import type { FileStore } from "../files/file_store.ts";
import { isRecord } from "../router/json_fields.ts";

export const batchEndpoints = [
  "/v1/chat/completions",
  "/v1/completions",
  "/v1/embeddings",
  "/v1/responses",
] as const;

type Row = typeof batches.$inferSelect;

const windows: Record<string, number> = { "24h": 86_400_000 };

export class BatchService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly files: Pick<FileStore, "get" | "content">,
  ) {}

  async create(keyId: string, req: Record<string, unknown>): Promise<Record<string, unknown>> {
    const endpoint = String(req.endpoint ?? "");
    if (!(batchEndpoints as readonly string[]).includes(endpoint)) {
      throw invalid("endpoint", `'endpoint' must be one of ${batchEndpoints.join(", ")}`);
    }
    const window = String(req.completion_window ?? "");
    if (!windows[window]) throw invalid("completion_window", "'completion_window' must be '24h'");
    const fileId = String(req.input_file_id ?? "");
    const file = await this.files.get(keyId, fileId).catch(() => {
      throw invalid("input_file_id", `there is no file '${fileId}'`);
    });
    if (file.purpose !== "batch") {
      throw invalid("input_file_id", "the input file's purpose must be 'batch'");
    }
    const lines = parseLines(
      new TextDecoder().decode(await this.files.content(keyId, fileId)),
      endpoint,
    );
    const now = this.clock.now();
    const id = `batch_${newUlid(now).toLowerCase()}`;
    const row: typeof batches.$inferInsert = {
      id,
      keyId,
      endpoint,
      inputFileId: fileId,
      completionWindow: window,
      status: "in_progress",
      metadata: isRecord(req.metadata) ? req.metadata : null,
      total: lines.length,
      createdAt: now,
      expiresAt: now + windows[window]!,
      inProgressAt: now,
    };
    await this.store.write(async (tx) => {
      await tx.insert(batches).values(row);
      for (let i = 0; i < lines.length; i += 200) {
        await tx.insert(batchLines).values(
          lines.slice(i, i + 200).map((l) => ({ batchId: id, ...l })),
        );
      }
    });
    return await this.get(keyId, id);
  }

  async get(keyId: string, id: string): Promise<Record<string, unknown>> {
    return await this.#object(await this.#row(keyId, id));
  }

  async list(keyId: string, limit: number): Promise<Record<string, unknown>[]> {
    const rows = await this.store.db.select().from(batches).where(eq(batches.keyId, keyId))
      .orderBy(desc(batches.createdAt)).limit(limit);
    return await Promise.all(rows.map((r) => this.#object(r)));
  }

  /** Lines in flight finish; no new ones start; the runner then ends it as cancelled. */
  async cancel(keyId: string, id: string): Promise<Record<string, unknown>> {
    const row = await this.#row(keyId, id);
    if (row.status === "validating" || row.status === "in_progress") {
      await this.store.write((tx) =>
        tx.update(batches).set({ status: "cancelling", cancellingAt: this.clock.now() })
          .where(eq(batches.id, id))
      );
    }
    return await this.get(keyId, id);
  }

  async #row(keyId: string, id: string): Promise<Row> {
    const [row] = await this.store.db.select().from(batches)
      .where(and(eq(batches.id, id), eq(batches.keyId, keyId)));
    if (!row) throw new AppError("not_found", { path: `batch '${id}'` });
    return row;
  }

  async #object(r: Row): Promise<Record<string, unknown>> {
    const [done] = await this.store.db.select({ n: count() }).from(batchLines)
      .where(and(eq(batchLines.batchId, r.id), isNotNull(batchLines.status)));
    const [failed] = await this.store.db.select({ n: count() }).from(batchLines)
      .where(and(eq(batchLines.batchId, r.id), isNotNull(batchLines.status), notOk()));
    const s = (ms: number | null) => ms === null ? null : Math.floor(ms / 1000);
    const failedN = failed?.n ?? 0;
    return {
      id: r.id,
      object: "batch",
      endpoint: r.endpoint,
      errors: r.errors ?? null,
      input_file_id: r.inputFileId,
      completion_window: r.completionWindow,
      status: r.status,
      output_file_id: r.outputFileId,
      error_file_id: r.errorFileId,
      created_at: s(r.createdAt),
      in_progress_at: s(r.inProgressAt),
      expires_at: s(r.expiresAt),
      finalizing_at: s(r.finalizingAt),
      completed_at: s(r.completedAt),
      failed_at: s(r.failedAt),
      expired_at: s(r.expiredAt),
      cancelling_at: s(r.cancellingAt),
      cancelled_at: s(r.cancelledAt),
      request_counts: {
        total: r.total,
        completed: (done?.n ?? 0) - failedN,
        failed: failedN,
      },
      metadata: r.metadata ?? null,
    };
  }
}

/** A line whose answer was not a success (status outside 2xx). */
function notOk() {
  return sql`(${batchLines.status} < 200 or ${batchLines.status} >= 300)`;
}

/** OpenAI's batch input: one JSON request a line, custom_id unique, url the batch's endpoint. */
function parseLines(
  text: string,
  endpoint: string,
): { customId: string; line: number; body: Record<string, unknown> }[] {
  const out: { customId: string; line: number; body: Record<string, unknown> }[] = [];
  const seen = new Set<string>();
  text.split("\n").forEach((raw, i) => {
    if (raw.trim() === "") return;
    const where = `line ${i + 1}`;
    let l: unknown;
    try {
      l = JSON.parse(raw);
    } catch {
      throw invalid("input_file_id", `${where} of the input file is not JSON`);
    }
    if (!isRecord(l) || typeof l.custom_id !== "string" || !isRecord(l.body)) {
      throw invalid("input_file_id", `${where} needs a string custom_id and a body`);
    }
    if (seen.has(l.custom_id)) {
      throw invalid("input_file_id", `${where}: custom_id '${l.custom_id}' is used twice`);
    }
    if ((l.method ?? "POST") !== "POST" || l.url !== endpoint) {
      throw invalid("input_file_id", `${where}: method must be POST and url '${endpoint}'`);
    }
    seen.add(l.custom_id);
    out.push({ customId: l.custom_id, line: i + 1, body: l.body });
  });
  if (out.length === 0) throw invalid("input_file_id", "the input file has no requests");
  return out;
}

function invalid(param: string, detail: string): AppError {
  return new AppError("invalid_request", { detail }, param);
}
