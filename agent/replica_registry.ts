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

export type ReplicaRecord = z.infer<typeof recordSchema>;

export class ReplicaRegistry {
  constructor(readonly path: string) {}

  /** An absent or unreadable file is an empty registry: it is a hint for cleanup, not a truth. */
  read(): ReplicaRecord[] {
    const parsed = fileSchema.safeParse(readJson(this.path));
    return parsed.success ? parsed.data.replicas : [];
  }

  /** Written to a temporary file and renamed, so a reader never sees half a file. */
  write(replicas: ReplicaRecord[]): void {
    const tmp = `${this.path}.${Deno.pid}.tmp`;
    Deno.writeTextFileSync(tmp, JSON.stringify({ version: 2, replicas }, null, 2) + "\n", {
      mode: 0o600,
    });
    Deno.renameSync(tmp, this.path);
  }
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(Deno.readTextFileSync(path));
  } catch {
    return undefined;
  }
}
