/**
 * One engine's load, whatever dialect it speaks: what the agent reads from the engine, sends on
 * its heartbeat, and the router scores replicas by. One schema, so the type both sides hold is
 * the one the channel validates. `known: false` means "could not read", which the router must
 * treat as unknown load, never as zero load. A field that is absent was not reported.
 */
import { z } from "zod";

export const loadSnapshotSchema = z.object({
  known: z.boolean(),
  /** KV-cache use, 0..1. */
  kvCacheUsage: z.number().min(0).max(1).optional(),
  running: z.number().nonnegative().optional(),
  waiting: z.number().nonnegative().optional(),
  decodeTokensPerSecond: z.number().nonnegative().optional(),
  promptTokensPerSecond: z.number().nonnegative().optional(),
  /** Epoch milliseconds of the read. */
  readAt: z.number(),
});
export type LoadSnapshot = Readonly<z.infer<typeof loadSnapshotSchema>>;

export function unknownLoad(readAt: number): LoadSnapshot {
  return { known: false, readAt };
}
