/**
 * SCIM's Groups (RFC 7643 §4.2), kept in `scim_groups`: members are people SCIM may see. A
 * group lands in the tree through oidc.roles and oidc.memberships, by its displayName or its
 * externalId (Entra ID's object id, which is what its groups claim carries): each change of
 * membership re-places the people it touched. Deleting a group removes only the group.
 */
import { eq } from "drizzle-orm";
import { ulid } from "ulid";
import { AppError } from "../../core/errors.ts";
import { scimGroups } from "../../db/schema.ts";
import { valuesAt } from "./scim_filter.ts";
import { groupRow, groupSchema, type Json, type ScimDeps, type ScimUsers } from "./scim_users.ts";

export type GroupRow = typeof scimGroups.$inferSelect;

function readGroup(r: Json): { displayName: string; externalId: string | null; members: string[] } {
  const displayName = valuesAt(r, "displayname")[0];
  if (typeof displayName !== "string" || !displayName.trim()) {
    throw new AppError("invalid_request", { detail: "displayName is required" }, "displayName");
  }
  const externalId = valuesAt(r, "externalid")[0];
  const members = (valuesAt(r, "members") as Json[]).map((m) => valuesAt(m, "value")[0])
    .filter((v): v is string => typeof v === "string");
  return {
    displayName: displayName.trim(),
    externalId: typeof externalId === "string" ? externalId : null,
    members: [...new Set(members)],
  };
}

export class ScimGroups {
  constructor(private readonly deps: ScimDeps, private readonly users: ScimUsers) {}

  async all(): Promise<GroupRow[]> {
    return (await this.deps.store.db.select().from(scimGroups)).sort((a, b) =>
      a.createdAt - b.createdAt
    );
  }

  async get(id: string): Promise<GroupRow> {
    const row = await groupRow(this.deps.store, id);
    if (!row) throw new AppError("not_found", { path: `Groups/${id}` });
    return row;
  }

  resource(g: GroupRow, withMembers = true): Json {
    const people = this.deps.tenancy.people;
    return {
      schemas: [groupSchema],
      id: g.id,
      ...(g.externalId ? { externalId: g.externalId } : {}),
      displayName: g.displayName,
      ...(withMembers
        ? {
          members: g.members.map((m) => ({
            value: m,
            display: people.get(m)?.username ?? m,
            $ref: `${this.deps.baseUrl()}/Users/${m}`,
          })),
        }
        : {}),
      meta: {
        resourceType: "Group",
        created: new Date(g.createdAt).toISOString(),
        lastModified: new Date(g.updatedAt).toISOString(),
        location: `${this.deps.baseUrl()}/Groups/${g.id}`,
      },
    };
  }

  async create(r: Json, token: string): Promise<GroupRow> {
    const g = readGroup(r);
    await this.#checkName(g.displayName, null);
    await this.#checkMembers(g.members);
    const now = this.deps.clock.now();
    const row: GroupRow = { id: ulid(), ...g, createdAt: now, updatedAt: now };
    await this.deps.store.write((tx) => tx.insert(scimGroups).values(row));
    for (const m of g.members) await this.users.placeByGroups(m, token);
    return row;
  }

  /** Makes the group what the resource says (PUT, or a PATCH's result). */
  async replace(before: GroupRow, r: Json, token: string): Promise<GroupRow> {
    const g = readGroup(r);
    if (g.displayName !== before.displayName) await this.#checkName(g.displayName, before.id);
    await this.#checkMembers(g.members.filter((m) => !before.members.includes(m)));
    const [after] = await this.deps.store.write((tx) =>
      tx.update(scimGroups).set({ ...g, updatedAt: this.deps.clock.now() }).where(
        eq(scimGroups.id, before.id),
      ).returning()
    );
    const touched = new Set([...before.members, ...g.members]);
    for (const m of touched) await this.users.placeByGroups(m, token);
    return after!;
  }

  async remove(g: GroupRow, token: string): Promise<void> {
    await this.deps.store.write((tx) => tx.delete(scimGroups).where(eq(scimGroups.id, g.id)));
    for (const m of g.members) await this.users.placeByGroups(m, token);
  }

  async #checkName(name: string, self: string | null): Promise<void> {
    const clash = (await this.all()).find((g) =>
      g.id !== self && g.displayName.toLowerCase() === name.toLowerCase()
    );
    if (clash) throw new AppError("conflict", { detail: `a group named ${name} exists` });
  }

  async #checkMembers(ids: string[]): Promise<void> {
    for (const id of ids) {
      const p = this.deps.tenancy.people.get(id);
      if (!p || !(await this.users.visible(p))) {
        throw new AppError("invalid_request", { detail: `member ${id} is not a provisioned user` });
      }
    }
  }
}
