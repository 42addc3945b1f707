/**
 * The engines this agent started, in one JSON file, so that after the agent was killed without
 * stopping them (SIGKILL, OOM, a crash) the next agent can find and stop them: engines run in their
 * own session and would otherwise keep their port and device memory. Never holds a secret.
 */
import { z } from "zod";

const recordSchema = z.object({
  replicaId: z.string(),
  engine: z.string(),
  model: z.string(),
  pid: z.number().int().positive(),
  /** /proc start time of `pid`; a pid alone may have been reused by an unrelated process. */
  procStart: z.number().optional(),
  port: z.number().int(),
  baseUrl: z.string(),
  startedAt: z.number(),
});
const fileSchema = z.object({ version: z.literal(2), replicas: z.array(recordSchema) });
/** The file the release before wrote (`shards.json`): the same records, named shards. */
const olderFileSchema = z.object({
  version: z.literal(1),
  shards: z.array(recordSchema.omit({ replicaId: true }).extend({ shardId: z.string() })),
});

export type ReplicaRecord = z.infer<typeof recordSchema>;

export class ReplicaRegistry {
  /**
   * `olderPath`: where the release before kept it, read when `path` does not exist yet so an
   * upgraded agent adopts the engines the one before started; removed at the first write.
   */
  constructor(readonly path: string, readonly olderPath?: string) {}

  /** An absent or unreadable file is an empty registry: it is a hint for cleanup, not a truth. */
  read(): ReplicaRecord[] {
    const now = readJson(this.path);
    if (now !== undefined || !this.olderPath) {
      const parsed = fileSchema.safeParse(now);
      return parsed.success ? parsed.data.replicas : [];
    }
    const older = olderFileSchema.safeParse(readJson(this.olderPath));
    if (!older.success) return [];
    return older.data.shards.map(({ shardId, ...r }) => ({ replicaId: shardId, ...r }));
  }

  /** Written to a temporary file and renamed, so a reader never sees half a file. */
  write(replicas: ReplicaRecord[]): void {
    const tmp = `${this.path}.${Deno.pid}.tmp`;
    Deno.writeTextFileSync(tmp, JSON.stringify({ version: 2, replicas }, null, 2) + "\n", {
      mode: 0o600,
    });
    Deno.renameSync(tmp, this.path);
    if (this.olderPath) {
      try {
        Deno.removeSync(this.olderPath);
      } catch {
        // Never there, or gone already.
      }
    }
  }
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(Deno.readTextFileSync(path));
  } catch {
    return undefined;
  }
}
