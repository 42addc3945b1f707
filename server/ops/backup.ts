/**
 * Backups of the store while it serves: `VACUUM INTO` copies one consistent snapshot (a read
 * transaction; writers go on meanwhile) into a new, compact file. The admin API streams that
 * file back to `ctl backup`, so the copy lands where the operator is, and removes it from the
 * control plane's disk as it is read.
 */
import { sql } from "drizzle-orm";
import { ulid } from "ulid";
import { AppError } from "../../core/errors.ts";
import type { Store } from "../../db/store.ts";

/** Writes a consistent copy of the store to a new temporary file beside it; returns its path. */
export async function snapshotStore(store: Store): Promise<string> {
  // PostgreSQL has its own tools (pg_dump, base backups), which see the whole cluster's store.
  if (store.dialect === "postgres") {
    throw new AppError("store_backup_external", { store: store.path });
  }
  const dir = store.path === ":memory:"
    ? await Deno.makeTempDir({ prefix: "llmgw-backup-" })
    : store.path.replace(/\/[^/]*$/, "") || ".";
  const path = `${dir}/.backup-${ulid()}.db`;
  await store.db.run(sql`VACUUM INTO ${path}`);
  await Deno.chmod(path, 0o600);
  return path;
}

/** The snapshot as a stream; the file is unlinked at once (the open handle keeps it readable). */
export async function snapshotStream(
  store: Store,
): Promise<{ body: ReadableStream<Uint8Array>; size: number }> {
  const path = await snapshotStore(store);
  const file = await Deno.open(path, { read: true });
  const size = (await file.stat()).size;
  await Deno.remove(path);
  return { body: file.readable, size };
}
