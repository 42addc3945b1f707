/**
 * `llmgw restore FILE --data DIR`: puts a backup in place of a stopped control plane's store.
 * Refuses while a server holds the data directory, checks the file is a sound llmgw store, and
 * keeps the store it replaces beside it (`llmgw.db.before-restore-<time>`).
 */
import { createClient } from "@libsql/client";
import type { Command } from "../../core/command.ts";
import { UsageError } from "../../core/command.ts";
import { resolveSettings } from "../../core/settings.ts";
import { StoreError } from "../../db/store.ts";
import { locationSettings } from "../wiring/config.ts";
import { lockDataDir } from "../ops/data_lock.ts";
import { parseFlags } from "../../core/flags.ts";

const help = `Usage: llmgw restore FILE --data DIR

Replaces the store in DIR with FILE (made by 'llmgw ctl backup FILE'). The control plane on DIR
must be stopped. The store replaced is kept as DIR/llmgw.db.before-restore-<time>.

Options:
  --data DIR    Data directory (env LLMGW_DATA)`;

export const restoreCommand: Command = {
  name: "restore",
  summary: "Restore a backup into a stopped control plane's data directory",
  async run(argv) {
    const { values, positionals } = parseFlags(argv, [locationSettings]);
    if (values.help) {
      console.log(help);
      return 0;
    }
    const file = positionals[0];
    if (!file || positionals.length > 1) throw new UsageError(`restore needs one FILE\n\n${help}`);
    const { dataDir } = resolveSettings(locationSettings, {
      flags: values,
      env: Deno.env.toObject(),
    });
    const result = await restoreStore(file, dataDir);
    console.log(
      `Restored ${file} into ${dataDir}/llmgw.db` +
        (result.previous ? `; the store it replaced is ${result.previous}` : "") +
        `.\nStart the control plane again.`,
    );
    return 0;
  },
};

export async function restoreStore(
  file: string,
  dataDir: string,
): Promise<{ previous?: string }> {
  try {
    if (!(await Deno.stat(file)).isFile) throw new UsageError(`${file} is not a file`);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) throw new UsageError(`no such file: ${file}`);
    throw e;
  }
  await Deno.mkdir(dataDir, { recursive: true, mode: 0o700 });
  const lock = await lockDataDir(dataDir);
  try {
    const tmp = `${dataDir}/llmgw.db.restoring`;
    await Deno.copyFile(file, tmp);
    await Deno.chmod(tmp, 0o600);
    await checkBackup(tmp, file);
    const db = `${dataDir}/llmgw.db`;
    let previous: string | undefined;
    if (await exists(db)) {
      previous = `${db}.before-restore-${new Date().toISOString().replaceAll(":", "-")}`;
      await Deno.rename(db, previous);
      // The old store's WAL belongs to it: left beside the new store it would be replayed there.
      for (const ext of ["-wal", "-shm"]) {
        if (await exists(db + ext)) await Deno.rename(db + ext, previous + ext);
      }
    }
    await Deno.rename(tmp, db);
    return previous ? { previous } : {};
  } finally {
    lock.release();
  }
}

async function checkBackup(path: string, shown: string): Promise<void> {
  const client = createClient({ url: `file:${path}` });
  try {
    const ok = await client.execute("PRAGMA integrity_check");
    if (String(ok.rows[0]?.[0]) !== "ok") {
      throw new StoreError(`${shown} is damaged (integrity check: ${ok.rows[0]?.[0]})`);
    }
    const t = await client.execute(
      "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('api_keys', 'usage')",
    );
    if (Number(t.rows[0]?.[0]) !== 2) {
      throw new StoreError(`${shown} is not an llmgw store (no api_keys and usage tables)`);
    }
  } catch (e) {
    await Deno.remove(path).catch(() => {});
    if (e instanceof StoreError) throw e;
    throw new StoreError(`${shown} is not a readable SQLite database: ${(e as Error).message}`);
  } finally {
    client.close();
  }
}

async function exists(p: string): Promise<boolean> {
  try {
    await Deno.stat(p);
    return true;
  } catch {
    return false;
  }
}
