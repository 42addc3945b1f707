/**
 * Where each API key's spend belongs, for finance's `--by project|team`: a key spends from its
 * project (a person's key within a project, or the project's service key), and a project belongs
 * to a team. A person's key outside any project counts to the person's team and to no project.
 * Read from the store, not the tenancy mirror: revoked keys and their past usage still count.
 */
import { eq, inArray } from "drizzle-orm";
import type { Store } from "../../db/store.ts";
import { apiKeys, projects, users } from "../../db/schema.ts";
import type { KeyOwners } from "./summary.ts";

export class StoreKeyOwners implements KeyOwners {
  constructor(private readonly store: Store) {}

  async owners(keyIds: string[]): Promise<Map<string, { project?: string; team?: string }>> {
    const out = new Map<string, { project?: string; team?: string }>();
    const ids = keyIds.filter((k) => k !== "");
    // SQLite caps bound parameters; a year of keys is read in slices.
    for (let i = 0; i < ids.length; i += 500) {
      const rows = await this.store.db.select({
        id: apiKeys.id,
        projectId: apiKeys.projectId,
        projectTeam: projects.teamId,
        personTeam: users.teamId,
      }).from(apiKeys)
        .leftJoin(projects, eq(projects.id, apiKeys.projectId))
        .leftJoin(users, eq(users.id, apiKeys.userId))
        .where(inArray(apiKeys.id, ids.slice(i, i + 500)));
      for (const r of rows) {
        const team = r.projectTeam ?? r.personTeam;
        out.set(r.id, {
          ...(r.projectId ? { project: r.projectId } : {}),
          ...(team ? { team } : {}),
        });
      }
    }
    return out;
  }
}
