/**
 * Which people a directory (LDAP, or SCIM's provisioning) holds, by the directory's stable id:
 * the `user_directory` rows. Read from the store each time: sign-in and the sync are rare next
 * to requests, and another control plane may have bound someone a moment ago.
 */
import { and, eq } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import type { Store } from "../../db/store.ts";
import { userDirectory } from "../../db/schema.ts";

export type DirectoryRow = typeof userDirectory.$inferSelect;
export type DirectorySource = DirectoryRow["source"];

export class DirectoryAccounts {
  constructor(private readonly deps: { store: Store; clock: Clock }) {}

  async byExternal(source: DirectorySource, externalId: string): Promise<DirectoryRow | undefined> {
    const [row] = await this.deps.store.db.select().from(userDirectory).where(
      and(eq(userDirectory.source, source), eq(userDirectory.externalId, externalId)),
    );
    return row;
  }

  async ofPerson(userId: string): Promise<DirectoryRow | undefined> {
    const [row] = await this.deps.store.db.select().from(userDirectory).where(
      eq(userDirectory.userId, userId),
    );
    return row;
  }

  async all(source: DirectorySource): Promise<DirectoryRow[]> {
    return await this.deps.store.db.select().from(userDirectory).where(
      eq(userDirectory.source, source),
    );
  }

  async bind(
    row: Omit<DirectoryRow, "syncedAt" | "suspendedByDirectory"> & {
      suspendedByDirectory?: boolean;
    },
  ): Promise<void> {
    const full = {
      suspendedByDirectory: false,
      ...row,
      syncedAt: this.deps.clock.now(),
    };
    await this.deps.store.write((tx) =>
      tx.insert(userDirectory).values(full).onConflictDoUpdate({
        target: userDirectory.userId,
        set: {
          source: full.source,
          externalId: full.externalId,
          dn: full.dn,
          groups: full.groups,
          suspendedByDirectory: full.suspendedByDirectory,
          syncedAt: full.syncedAt,
        },
      })
    );
  }

  async update(
    userId: string,
    patch: Partial<Pick<DirectoryRow, "dn" | "groups" | "suspendedByDirectory" | "externalId">>,
  ): Promise<void> {
    await this.deps.store.write((tx) =>
      tx.update(userDirectory).set({ ...patch, syncedAt: this.deps.clock.now() }).where(
        eq(userDirectory.userId, userId),
      )
    );
  }
}
