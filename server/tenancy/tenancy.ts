/**
 * The tenancy tree (organisation → team → project → person → key), mirrored in memory so the
 * request path never reads the store to find where a key sits. Every change goes through here:
 * the store first, then the mirror, so the two agree once a call returns.
 */
import { eq } from "drizzle-orm";
import { ulid } from "ulid";
import type { Clock } from "../../core/clock.ts";
import type { ChangeFeed } from "../control/change_feed.ts";
import type { Store } from "../../db/store.ts";
import { orgs, projects, type roles, teams, users } from "../../db/schema.ts";
import { AppError } from "../../core/errors.ts";

export type Role = (typeof roles)[number];
export type Org = typeof orgs.$inferSelect;
export type Team = typeof teams.$inferSelect;
export type Project = typeof projects.$inferSelect;

/** A person as the rest of the program sees them: never their password hash. */
export interface Person {
  id: string;
  username: string;
  email: string | null;
  displayName: string | null;
  role: Role;
  orgId: string | null;
  teamId: string | null;
  state: "active" | "suspended";
  /** How the person signs in: a local password, the identity provider, the directory, or none yet. */
  signIn: "local" | "oidc" | "directory" | "none";
  createdAt: number;
}

export type ScopeKind = "global" | "org" | "team" | "project" | "person" | "key";
export interface Scope {
  kind: ScopeKind;
  id: string;
}
export const globalScope: Scope = { kind: "global", id: "global" };

/** Where an object lives in the tree: what access checks compare. */
export interface Place {
  orgId: string | null;
  teamId: string | null;
  projectId?: string | null;
  personId?: string | null;
}

type UserRow = typeof users.$inferSelect;

export function toPerson(row: UserRow): Person {
  return {
    id: row.id,
    username: row.username,
    email: row.email,
    displayName: row.displayName,
    role: row.role === "admin" ? "administrator" : row.role,
    orgId: row.orgId,
    teamId: row.teamId,
    state: row.state,
    signIn: row.passwordHash.startsWith("!oidc")
      ? "oidc"
      : row.passwordHash.startsWith("!ldap")
      ? "directory"
      : row.passwordHash.startsWith("!") || row.passwordHash === ""
      ? "none"
      : "local",
    createdAt: row.createdAt,
  };
}

const nameRule = /^[\p{L}\p{N}][\p{L}\p{N} ._-]{0,62}$/u;
function checkName(name: string, field = "name"): string {
  const n = name.trim();
  if (!nameRule.test(n)) {
    throw new AppError(
      "invalid_request",
      { detail: `${field} must be 1 to 63 letters, digits, spaces, dots, dashes or underscores` },
      field,
    );
  }
  return n;
}

export interface TenancyDeps {
  store: Store;
  clock: Clock;
  /** Told of each change, so the other control planes reload. */
  changes?: ChangeFeed;
}

function refill<K, V>(map: Map<K, V>, entries: [K, V][]): void {
  map.clear();
  for (const [k, v] of entries) map.set(k, v);
}

export class Tenancy {
  readonly orgs = new Map<string, Org>();
  readonly teams = new Map<string, Team>();
  readonly projects = new Map<string, Project>();
  readonly people = new Map<string, Person>();

  private constructor(private readonly deps: TenancyDeps) {}

  static async load(deps: TenancyDeps): Promise<Tenancy> {
    const t = new Tenancy(deps);
    await t.reload();
    return t;
  }

  /**
   * Reads orgs, teams, projects and people again (another control plane changed them). All is
   * read before the maps change, so no request sees them half filled.
   */
  async reload(): Promise<void> {
    const db = this.deps.store.db;
    const [o, t, p, u] = await Promise.all([
      db.select().from(orgs),
      db.select().from(teams),
      db.select().from(projects),
      db.select().from(users),
    ]);
    refill(this.orgs, o.map((r) => [r.id, r]));
    refill(this.teams, t.map((r) => [r.id, r]));
    refill(this.projects, p.map((r) => [r.id, r]));
    refill(this.people, u.map((r) => [r.id, toPerson(r)]));
  }

  org(id: string): Org {
    return found(this.orgs, "orgs", id);
  }
  team(id: string): Team {
    return found(this.teams, "teams", id);
  }
  project(id: string): Project {
    return found(this.projects, "projects", id);
  }
  person(id: string): Person {
    return found(this.people, "people", id);
  }

  async createOrg(name: string): Promise<Org> {
    const row = { id: ulid(), name: checkName(name), createdAt: this.deps.clock.now() };
    if ([...this.orgs.values()].some((o) => o.name === row.name)) {
      throw new AppError("conflict", { detail: `an organisation named '${row.name}' exists` });
    }
    return await this.saveNew(orgs, this.orgs, row);
  }

  async renameOrg(id: string, name: string): Promise<Org> {
    const row = { ...this.org(id), name: checkName(name) };
    return await this.saveName(orgs, this.orgs, row);
  }

  async createTeam(orgId: string, name: string): Promise<Team> {
    this.org(orgId);
    const row = { id: ulid(), orgId, name: checkName(name), createdAt: this.deps.clock.now() };
    refuseTaken(this.teams.values(), (t) => t.orgId === orgId, row.name, "team", "organisation");
    return await this.saveNew(teams, this.teams, row);
  }

  async renameTeam(id: string, name: string): Promise<Team> {
    const row = { ...this.team(id), name: checkName(name) };
    const others = [...this.teams.values()].filter((t) => t.id !== id);
    refuseTaken(others, (t) => t.orgId === row.orgId, row.name, "team", "organisation");
    return await this.saveName(teams, this.teams, row);
  }

  async createProject(teamId: string, name: string): Promise<Project> {
    const team = this.team(teamId);
    const row = {
      id: ulid(),
      orgId: team.orgId,
      teamId,
      name: checkName(name),
      createdAt: this.deps.clock.now(),
    };
    refuseTaken(this.projects.values(), (p) => p.teamId === teamId, row.name, "project", "team");
    return await this.saveNew(projects, this.projects, row);
  }

  async renameProject(id: string, name: string): Promise<Project> {
    const row = { ...this.project(id), name: checkName(name) };
    const others = [...this.projects.values()].filter((p) => p.id !== id);
    refuseTaken(others, (p) => p.teamId === row.teamId, row.name, "project", "team");
    return await this.saveName(projects, this.projects, row);
  }

  /** Writes a new `row` to the store, then to the mirror. */
  private async saveNew<T extends typeof orgs | typeof teams | typeof projects>(
    table: T,
    mirror: Map<string, T["$inferSelect"]>,
    row: T["$inferInsert"] & T["$inferSelect"],
  ): Promise<T["$inferSelect"]> {
    await this.deps.store.write((tx) => tx.insert(table).values(row));
    mirror.set(row.id, row);
    this.deps.changes?.changed("tenancy");
    return row;
  }

  /** Writes a renamed `row` to the store, then to the mirror. */
  private async saveName<R extends { id: string; name: string }>(
    table: typeof orgs | typeof teams | typeof projects,
    mirror: Map<string, R>,
    row: R,
  ): Promise<R> {
    await this.deps.store.write((tx) =>
      tx.update(table).set({ name: row.name }).where(eq(table.id, row.id))
    );
    mirror.set(row.id, row);
    this.deps.changes?.changed("tenancy");
    return row;
  }

  /** Checks that a team belongs to the org given (when both are), and fills the org from the team. */
  resolveScope(
    orgId: string | null,
    teamId: string | null,
  ): { orgId: string | null; teamId: string | null } {
    if (teamId) {
      const team = this.team(teamId);
      if (orgId && team.orgId !== orgId) {
        throw new AppError("invalid_request", { detail: "team_id is not in org_id" }, "team_id");
      }
      return { orgId: team.orgId, teamId };
    }
    if (orgId) this.org(orgId);
    return { orgId, teamId: null };
  }

  async createPerson(input: {
    username: string;
    email: string | null;
    displayName: string | null;
    role: Role;
    orgId: string | null;
    teamId: string | null;
    passwordHash: string;
    oidcSubject?: string;
  }): Promise<Person> {
    const username = input.username.trim().toLowerCase();
    if (!/^[a-z0-9][a-z0-9._@+-]{0,99}$/.test(username)) {
      throw new AppError("invalid_request", { detail: "username is not valid" }, "username");
    }
    const email = input.email?.trim().toLowerCase() || null;
    for (const p of this.people.values()) {
      if (p.username === username || (email && p.email === email)) {
        throw new AppError("conflict", { detail: `a person with that username or email exists` });
      }
    }
    const row: UserRow = {
      id: ulid(),
      username,
      passwordHash: input.passwordHash,
      role: input.role,
      createdAt: this.deps.clock.now(),
      email,
      displayName: input.displayName?.trim() || null,
      orgId: input.orgId,
      teamId: input.teamId,
      state: "active",
      oidcSubject: input.oidcSubject ?? null,
    };
    await this.deps.store.write((tx) => tx.insert(users).values(row));
    const person = toPerson(row);
    this.people.set(row.id, person);
    this.deps.changes?.changed("tenancy");
    return person;
  }

  async updatePerson(
    id: string,
    patch: Partial<
      Pick<
        UserRow,
        "displayName" | "role" | "orgId" | "teamId" | "state" | "passwordHash" | "email"
      >
    >,
  ): Promise<Person> {
    this.person(id);
    const [row] = await this.deps.store.write((tx) =>
      tx.update(users).set(patch).where(eq(users.id, id)).returning()
    );
    const person = toPerson(row!);
    this.people.set(id, person);
    this.deps.changes?.changed("tenancy");
    return person;
  }

  /** Reads the one row the sign-in paths need, hash included; never cached. */
  async credentials(by: { email: string } | { id: string } | { oidcSubject: string }) {
    const where = "email" in by
      ? eq(users.email, by.email.trim().toLowerCase())
      : "id" in by
      ? eq(users.id, by.id)
      : eq(users.oidcSubject, by.oidcSubject);
    const [row] = await this.deps.store.db.select().from(users).where(where);
    return row;
  }

  placeOfProject(id: string): Place {
    const p = this.project(id);
    return { orgId: p.orgId, teamId: p.teamId, projectId: p.id };
  }

  placeOfPerson(id: string): Place {
    const p = this.person(id);
    return { orgId: p.orgId, teamId: p.teamId, personId: p.id };
  }

  /**
   * The levels a key's request passes through, widest first: global, then org, team, project,
   * person and the key itself where they exist. Limits and budgets are checked at each.
   */
  chain(key: { id: string; userId: string | null; projectId: string | null }): Scope[] {
    const out: Scope[] = [globalScope];
    const project = key.projectId ? this.projects.get(key.projectId) : undefined;
    const person = key.userId ? this.people.get(key.userId) : undefined;
    const orgId = project?.orgId ?? person?.orgId;
    const teamId = project?.teamId ?? person?.teamId;
    if (orgId) out.push({ kind: "org", id: orgId });
    if (teamId) out.push({ kind: "team", id: teamId });
    if (project) out.push({ kind: "project", id: project.id });
    if (person) out.push({ kind: "person", id: person.id });
    out.push({ kind: "key", id: key.id });
    return out;
  }

  /** The chain above a scope (itself excluded), for caps such as the longest key lifetime. */
  chainAbove(scope: Scope): Scope[] {
    const out: Scope[] = [globalScope];
    switch (scope.kind) {
      case "global":
        return [];
      case "org":
        return out;
      case "team":
        return [...out, { kind: "org", id: this.team(scope.id).orgId }];
      case "project": {
        const p = this.project(scope.id);
        return [...out, { kind: "org", id: p.orgId }, { kind: "team", id: p.teamId }];
      }
      case "person": {
        const p = this.person(scope.id);
        if (p.orgId) out.push({ kind: "org", id: p.orgId });
        if (p.teamId) out.push({ kind: "team", id: p.teamId });
        return out;
      }
      case "key":
        return out;
    }
  }
}

/**
 * Names are unique within their parent (the store has the same unique index): a clash is a 409
 * saying so, for a rename as for a creation, never the store's constraint error.
 */
/** The mirror's entry for `id`, or the 404 its API path would give. */
function found<T>(mirror: Map<string, T>, collection: string, id: string): T {
  const v = mirror.get(id);
  if (!v) throw new AppError("not_found", { path: `/api/v1/${collection}/${id}` });
  return v;
}

function refuseTaken<T extends { name: string }>(
  siblings: Iterable<T>,
  sameParent: (row: T) => boolean,
  name: string,
  what: string,
  parent: string,
): void {
  for (const row of siblings) {
    if (sameParent(row) && row.name === name) {
      throw new AppError("conflict", {
        detail: `a ${what} named '${name}' exists in this ${parent}`,
      });
    }
  }
}
