/**
 * The files of /v1/files: a row per file in the store; the bytes under the data directory's
 * files/ (named by id, never by the client's name) on the embedded store, and in the store
 * itself when it is PostgreSQL, so that every control plane of a cluster serves every file.
 * Every read is per key: another key's file reads as absent. Expired files are not served and
 * are removed as new ones come.
 *
 * In PostgreSQL the bytes are bytea rows of at most 1 MiB (`file_chunks`), not one value and
 * not large objects: one bytea value is capped at 1 GB and is built whole in memory on both
 * ends, while large objects live outside the table (a deleted row leaves its object behind
 * until vacuumlo, and pg_dump and logical replication treat them apart). Chunks are plain rows:
 * deleted with their file by the foreign key's cascade, copied and replicated with the rest.
 */
import { and, asc, desc, eq, isNotNull, lt, sql, sum } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import { AppError } from "../../core/errors.ts";
import { newUlid } from "../../core/ulid.ts";
import type { Store, Tx } from "../../db/store.ts";
import { Buffer } from "node:buffer";
import { fileChunks, files } from "../../db/schema.ts";

/** The most bytes in one `file_chunks` row. */
export const fileChunkBytes = 1 << 20;

export const filePurposes = ["batch", "batch_output", "user_data", "assistants", "vision"] as const;
export type FilePurpose = (typeof filePurposes)[number];

export interface FileOwner {
  keyId: string;
  projectId: string | null;
}

export interface FileObject {
  id: string;
  object: "file";
  bytes: number;
  created_at: number;
  expires_at: number | null;
  filename: string;
  purpose: string;
  status: "processed";
}

type Row = typeof files.$inferSelect;

export interface FileLimits {
  readonly filesMaxBytes: number;
  readonly filesProjectQuotaBytes: number;
}

export class FileStore {
  readonly #dir: string;
  /** The bytes are in the store (PostgreSQL), not under the data directory. */
  readonly #inStore: boolean;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    dataDir: string,
    private readonly limits: FileLimits,
  ) {
    this.#dir = `${dataDir}/files`;
    this.#inStore = store.dialect === "postgres";
  }

  async create(
    owner: FileOwner,
    f: { purpose: FilePurpose; filename: string; bytes: Uint8Array; expiresAfterS?: number },
  ): Promise<FileObject> {
    if (f.bytes.length > this.limits.filesMaxBytes) {
      throw new AppError("body_too_large", { limit: this.limits.filesMaxBytes }, "file");
    }
    await this.#sweep();
    const used = await this.#used(owner);
    if (used + f.bytes.length > this.limits.filesProjectQuotaBytes) {
      throw new AppError("invalid_request", {
        detail: `the files' quota (${this.limits.filesProjectQuotaBytes} bytes) would be exceeded`,
      }, "file");
    }
    const now = this.clock.now();
    const id = `file-${newUlid(now).toLowerCase()}`;
    if (!this.#inStore) {
      await Deno.mkdir(this.#dir, { recursive: true, mode: 0o700 });
      await Deno.writeFile(this.#path(id), f.bytes, { mode: 0o600 });
    }
    const row: Row = {
      id,
      keyId: owner.keyId,
      projectId: owner.projectId,
      purpose: f.purpose,
      filename: f.filename,
      bytes: f.bytes.length,
      createdAt: now,
      expiresAt: f.expiresAfterS ? now + f.expiresAfterS * 1000 : null,
    };
    await this.store.write(async (tx) => {
      await tx.insert(files).values(row);
      if (this.#inStore) await insertChunks(tx, id, f.bytes);
    });
    return fileObject(row);
  }

  async list(keyId: string, opts: { purpose?: string; limit: number }): Promise<FileObject[]> {
    const rows = await this.store.db.select().from(files)
      .where(
        opts.purpose
          ? and(eq(files.keyId, keyId), eq(files.purpose, opts.purpose))
          : eq(files.keyId, keyId),
      )
      .orderBy(desc(files.createdAt)).limit(opts.limit);
    return rows.filter((r) => this.#live(r)).map(fileObject);
  }

  async get(keyId: string, id: string): Promise<FileObject> {
    return fileObject(await this.#row(keyId, id));
  }

  async content(keyId: string, id: string): Promise<Uint8Array> {
    await this.#row(keyId, id);
    if (!this.#inStore) return await Deno.readFile(this.#path(id));
    const chunks = await this.store.db.select({ bytes: fileChunks.bytes }).from(fileChunks)
      .where(eq(fileChunks.fileId, id)).orderBy(asc(fileChunks.seq));
    const out = new Uint8Array(chunks.reduce((n, c) => n + c.bytes.length, 0));
    let at = 0;
    for (const c of chunks) out.set(c.bytes, at), at += c.bytes.length;
    return out;
  }

  async delete(keyId: string, id: string): Promise<void> {
    await this.#row(keyId, id);
    // In the store, the chunks go with the row (the foreign key cascades).
    await this.store.write((tx) => tx.delete(files).where(eq(files.id, id)));
    if (!this.#inStore) await Deno.remove(this.#path(id)).catch(() => {});
  }

  async #row(keyId: string, id: string): Promise<Row> {
    const [row] = await this.store.db.select().from(files)
      .where(and(eq(files.id, id), eq(files.keyId, keyId)));
    if (!row || !this.#live(row)) throw new AppError("not_found", { path: `file '${id}'` });
    return row;
  }

  #live(r: Row): boolean {
    return r.expiresAt === null || r.expiresAt > this.clock.now();
  }

  async #used(owner: FileOwner): Promise<number> {
    const where = owner.projectId
      ? eq(files.projectId, owner.projectId)
      : and(eq(files.keyId, owner.keyId), sql`${files.projectId} is null`);
    const [row] = await this.store.db.select({ total: sum(files.bytes) }).from(files).where(where);
    return Number(row?.total ?? 0);
  }

  async #sweep(): Promise<void> {
    const now = this.clock.now();
    const gone = await this.store.write((tx) =>
      tx.delete(files).where(and(isNotNull(files.expiresAt), lt(files.expiresAt, now)))
        .returning({ id: files.id })
    );
    if (this.#inStore) return;
    for (const { id } of gone) await Deno.remove(this.#path(id)).catch(() => {});
  }

  #path(id: string): string {
    return `${this.#dir}/${id}`;
  }
}

async function insertChunks(tx: Tx, fileId: string, bytes: Uint8Array): Promise<void> {
  for (let seq = 0, at = 0; at < bytes.length || seq === 0; seq++, at += fileChunkBytes) {
    const part = bytes.subarray(at, at + fileChunkBytes);
    await tx.insert(fileChunks).values({ fileId, seq, bytes: Buffer.from(part) });
  }
}

/**
 * Moves a box's file bytes from its data directory into a PostgreSQL store its rows were copied
 * to (`llmgw store copy`); a file whose bytes are gone from the disk is reported, not invented.
 */
export async function copyFileBytes(
  dataDir: string,
  to: Store,
): Promise<{ copied: number; missing: string[] }> {
  const rows = await to.db.select({ id: files.id }).from(files);
  const missing: string[] = [];
  let copied = 0;
  for (const { id } of rows) {
    let bytes: Uint8Array;
    try {
      bytes = await Deno.readFile(`${dataDir}/files/${id}`);
    } catch {
      missing.push(id);
      continue;
    }
    await to.write(async (tx) => {
      await tx.delete(fileChunks).where(eq(fileChunks.fileId, id));
      await insertChunks(tx, id, bytes);
    });
    copied++;
  }
  return { copied, missing };
}

function fileObject(r: Row): FileObject {
  return {
    id: r.id,
    object: "file",
    bytes: r.bytes,
    created_at: Math.floor(r.createdAt / 1000),
    expires_at: r.expiresAt === null ? null : Math.floor(r.expiresAt / 1000),
    filename: r.filename,
    purpose: r.purpose,
    status: "processed",
  };
}
