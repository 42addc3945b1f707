/**
 * What stands between a caller and a company server: a calls-per-minute limit per caller and
 * server, and a breaker per server (five failures in a row take it out for a minute, its tools
 * gone from the list). Both are kept in the store, so every control plane of a cluster counts
 * the same calls and takes the same server out: a caller spreading calls over several control
 * planes gets no more, and a server that fails on one is out on all.
 *
 * The rate counts per second over the last minute (at most 60 rows per caller and server, the
 * older pruned), so the window slides as a list of call times would. A take is one write
 * transaction: on SQLite's one write path two control planes never both take the last call; on
 * PostgreSQL two takes at the same instant may both pass, erring by a call, never by a minute.
 * MCP calls are far slower than a write, and the /v1 path never waits on these.
 */
import { and, eq, gt, gte, inArray, lte, sql } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import { mcpBreakers, mcpCallCounts } from "../../db/schema.ts";
import type { Store } from "../../db/store.ts";

export const breakerFailures = 5;
export const breakerOpenMs = 60_000;
const windowMs = 60_000;

export class CallGuards {
  constructor(private readonly deps: { store: Store; clock: Clock }) {}

  /** The servers whose breaker is open now, among `servers`: neither listed nor called. */
  async open(servers: string[]): Promise<Set<string>> {
    if (servers.length === 0) return new Set();
    const rows = await this.deps.store.db.select({ server: mcpBreakers.server })
      .from(mcpBreakers)
      .where(and(
        inArray(mcpBreakers.server, servers),
        gt(mcpBreakers.openUntil, this.deps.clock.now()),
      ));
    return new Set(rows.map((r) => r.server));
  }

  async isOpen(server: string): Promise<boolean> {
    return (await this.open([server])).has(server);
  }

  /** A success closes the count; it writes only when there was one to close. */
  async succeeded(server: string): Promise<void> {
    const rows = await this.deps.store.db.select({ failures: mcpBreakers.failures })
      .from(mcpBreakers).where(eq(mcpBreakers.server, server));
    if (rows.length === 0) return;
    await this.deps.store.write((tx) =>
      tx.delete(mcpBreakers).where(
        and(eq(mcpBreakers.server, server), lte(mcpBreakers.openUntil, this.deps.clock.now())),
      )
    );
  }

  async failed(server: string): Promise<void> {
    const now = this.deps.clock.now();
    await this.deps.store.write(async (tx) => {
      const [row] = await tx.select().from(mcpBreakers).where(eq(mcpBreakers.server, server));
      // Closed again after its minute: one more failure does not reopen it at once.
      const expired = row !== undefined && row.openUntil > 0 && row.openUntil <= now;
      const failures = !row || expired ? 1 : row.failures + 1;
      const openUntil = failures >= breakerFailures
        ? (row && row.openUntil > now ? row.openUntil : now + breakerOpenMs)
        : 0;
      await tx.insert(mcpBreakers).values({ server, failures, openUntil }).onConflictDoUpdate({
        target: mcpBreakers.server,
        set: { failures, openUntil },
      });
    });
  }

  /**
   * Takes one call of `rate` per minute for the caller on the server; the seconds to wait when
   * none is left, else null.
   */
  async take(caller: string, server: string, rate: number | null): Promise<number | null> {
    if (rate === null) return null;
    const now = this.deps.clock.now();
    const second = Math.floor(now / 1000);
    // Seconds whose calls are still within the minute before now.
    const first = Math.floor((now - windowMs) / 1000) + 1;
    const mine = and(eq(mcpCallCounts.caller, caller), eq(mcpCallCounts.server, server));
    return await this.deps.store.write(async (tx) => {
      const rows = await tx.select().from(mcpCallCounts)
        .where(and(mine, gte(mcpCallCounts.second, first)))
        .orderBy(mcpCallCounts.second);
      const used = rows.reduce((n, r) => n + r.count, 0);
      if (used >= rate) {
        return Math.max(1, Math.ceil((rows[0]!.second * 1000 + windowMs - now) / 1000));
      }
      await tx.insert(mcpCallCounts).values({ caller, server, second, count: 1 })
        .onConflictDoUpdate({
          target: [mcpCallCounts.caller, mcpCallCounts.server, mcpCallCounts.second],
          set: { count: sql`${mcpCallCounts.count} + 1` },
        });
      await tx.delete(mcpCallCounts).where(lte(mcpCallCounts.second, first - 1));
      return null;
    });
  }
}
