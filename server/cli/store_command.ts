/**
 * `llmgw store copy --to postgres://… [--data DIR]`: moves a single box's store into
 * PostgreSQL, the first step of growing the box into a cluster (README). The control plane must
 * be stopped: the command holds the data directory's lock while it copies.
 */
import type { Command } from "../../core/command.ts";
import { UsageError } from "../../core/command.ts";
import { parseFlags } from "../../core/flags.ts";
import { resolveSettings } from "../../core/settings.ts";
import { isPostgresUrl, openStore } from "../../db/store.ts";
import { locationSettings } from "../wiring/config.ts";
import { copyStore } from "../ops/copy_store.ts";
import { copyFileBytes } from "../files/file_store.ts";
import { lockDataDir } from "../ops/data_lock.ts";

const help = `Usage: llmgw store copy --to postgres://USER@HOST:PORT/DB [--data DIR]

Copies every table of the stopped control plane's store (DIR/llmgw.db, usage rows included)
into an empty PostgreSQL database, in one transaction, and checks each table's row count on both
sides. Give the password in PGPASSWORD rather than in the URL, so it stays out of the process
list. Then set store.url to the same URL on every control plane and start them.

Options:
  --to URL      The PostgreSQL database to copy into (migrated first; must be empty)
  --data DIR    Data directory (env LLMGW_DATA)`;

export const storeCommand: Command = {
  name: "store",
  summary: "Copy a single box's store into PostgreSQL",
  async run(argv) {
    const { values, positionals } = parseFlags(argv, [locationSettings], {
      to: { type: "string" },
    });
    if (values.help) {
      console.log(help);
      return 0;
    }
    if (positionals[0] !== "copy" || positionals.length > 1) {
      throw new UsageError(`store needs the subcommand copy\n\n${help}`);
    }
    const to = typeof values.to === "string" ? values.to : "";
    if (!isPostgresUrl(to)) throw new UsageError(`store copy needs --to postgres://…\n\n${help}`);
    const { dataDir } = resolveSettings(locationSettings, {
      flags: values,
      env: Deno.env.toObject(),
    });
    const { counts, files } = await copyDataDir(dataDir, to);
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    console.log(
      `Copied ${total} rows in ${Object.keys(counts).length} tables; every count matches:\n` +
        Object.entries(counts).map(([t, n]) => `  ${t.padEnd(18)} ${n}`).join("\n") +
        `\nMoved the bytes of ${files.copied} files from ${dataDir}/files into the store.` +
        (files.missing.length
          ? `\n${files.missing.length} files had no bytes on disk and will read as empty: ` +
            files.missing.slice(0, 5).join(", ")
          : "") +
        `\nSet store.url on every control plane to this database and start them.`,
    );
    return 0;
  },
};

/** Copies the box's tables into `url`, then its files' bytes (a cluster keeps them in the store). */
export async function copyDataDir(
  dataDir: string,
  url: string,
): Promise<{ counts: Record<string, number>; files: { copied: number; missing: string[] } }> {
  const lock = await lockDataDir(dataDir);
  try {
    const from = await openStore(`${dataDir}/llmgw.db`);
    try {
      const to = await openStore(url);
      try {
        const counts = await copyStore(from, to);
        return { counts, files: await copyFileBytes(dataDir, to) };
      } finally {
        await to.close();
      }
    } finally {
      await from.close();
    }
  } finally {
    lock.release();
  }
}
