/**
 * SCIM's Users as llmgw's people (RFC 7643 §4.1): `id` is the person's id, `userName` their
 * username, the work email their email, `active` their state. People provisioned here sign in
 * through the identity provider (OIDC), never with a local password. SCIM sees and changes only
 * the people it provisioned and those who signed in through OIDC: a local account (init's
 * administrator) or a directory one is not the provider's to deactivate. Deprovisioned means
 * suspended with sessions ended, never deleted: usage and audit rows keep their person.
 */
import { eq } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import { AppError } from "../../core/errors.ts";
import type { Store } from "../../db/store.ts";
import { scimGroups } from "../../db/schema.ts";
import type { AuditLog } from "../audit/audit.ts";
import type { DirectoryAccounts } from "../auth/directory_accounts.ts";
import { type GroupRules, placeFromGroups } from "../auth/group_places.ts";
import { oidcPasswordSentinel } from "../auth/passwords.ts";
import type { Sessions } from "../auth/sessions.ts";
import type { Actor } from "../tenancy/access.ts";
import type { Person, Tenancy } from "../tenancy/tenancy.ts";
import { valuesAt } from "./scim_filter.ts";
import { scimBool } from "./scim_patch.ts";

export const userSchema = "urn:ietf:params:scim:schemas:core:2.0:User";
export const groupSchema = "urn:ietf:params:scim:schemas:core:2.0:Group";

export type Json = Record<string, unknown>;

export interface ScimDeps {
  store: Store;
  clock: Clock;
  tenancy: Tenancy;
  accounts: DirectoryAccounts;
  sessions: Sessions;
  audit: AuditLog;
  /** How groups map to roles and places: oidc.roles and oidc.memberships (same provider). */
  rules: GroupRules;
  /** Where the resources are, for `meta.location`. */
  baseUrl: () => string;
}

function actorFor(token: string): Actor {
  return {
    kind: "system",
    id: "scim",
    name: `SCIM provisioning (${token})`,
    role: "administrator",
    personId: null,
    orgId: null,
    teamId: null,
    readOnly: false,
  };
}

function text(v: unknown): string | null {
  const x = Array.isArray(v) ? v[0] : v;
  return typeof x === "string" && x.trim() ? x.trim() : null;
}

/** What a User resource says, read case-insensitively. */
export function readUser(r: Json) {
  const userName = text(valuesAt(r, "username"));
  if (!userName) {
    throw new AppError("invalid_request", { detail: "userName is required" }, "userName");
  }
  const emails = valuesAt(r, "emails") as Json[];
  const work = emails.find((e) => valuesAt(e, "primary").some((p) => scimBool(p) === true)) ??
    emails.find((e) => text(valuesAt(e, "type"))?.toLowerCase() === "work") ?? emails[0];
  const email = (work ? text(valuesAt(work, "value")) : null) ??
    (userName.includes("@") ? userName : null);
  const given = text(valuesAt(r, "name.givenname"));
  const family = text(valuesAt(r, "name.familyname"));
  const displayName = text(valuesAt(r, "displayname")) ?? text(valuesAt(r, "name.formatted")) ??
    ([given, family].filter(Boolean).join(" ") || null);
  const activeRaw = valuesAt(r, "active")[0];
  const active = activeRaw === undefined ? true : scimBool(activeRaw);
  if (typeof active !== "boolean") {
    throw new AppError("invalid_request", { detail: "active must be true or false" }, "active");
  }
  return {
    userName,
    email: email?.toLowerCase() ?? null,
    displayName,
    active,
    externalId: text(valuesAt(r, "externalid")),
  };
}

export class ScimUsers {
  constructor(private readonly deps: ScimDeps) {}

  /** Whether SCIM may see and change the person (see the file's note). */
  async visible(p: Person): Promise<boolean> {
    if (p.signIn === "oidc") return true;
    return (await this.deps.accounts.ofPerson(p.id))?.source === "scim";
  }

  async get(id: string): Promise<Person> {
    const p = this.deps.tenancy.people.get(id);
    if (!p || !(await this.visible(p))) throw new AppError("not_found", { path: `Users/${id}` });
    return p;
  }

  async all(): Promise<Person[]> {
    const out: Person[] = [];
    for (const p of this.deps.tenancy.people.values()) if (await this.visible(p)) out.push(p);
    return out.sort((a, b) => a.createdAt - b.createdAt);
  }

  async resource(p: Person): Promise<Json> {
    const bound = await this.deps.accounts.ofPerson(p.id);
    const groups = await this.#groupsOf(p.id);
    return {
      schemas: [userSchema],
      id: p.id,
      ...(bound?.source === "scim" && bound.externalId !== p.id
        ? { externalId: bound.externalId }
        : {}),
      userName: p.username,
      ...(p.displayName ? { displayName: p.displayName, name: { formatted: p.displayName } } : {}),
      emails: p.email ? [{ value: p.email, type: "work", primary: true }] : [],
      active: p.state === "active",
      groups: groups.map((g) => ({ value: g.id, display: g.displayName })),
      meta: {
        resourceType: "User",
        created: new Date(p.createdAt).toISOString(),
        lastModified: new Date(bound?.syncedAt ?? p.createdAt).toISOString(),
        location: `${this.deps.baseUrl()}/Users/${p.id}`,
      },
    };
  }

  async create(r: Json, token: string): Promise<Person> {
    const u = readUser(r);
    const t = this.deps.tenancy;
    for (const p of t.people.values()) {
      if (p.username === u.userName.toLowerCase() || (u.email && p.email === u.email)) {
        throw new AppError("conflict", { detail: `a person with userName ${u.userName} exists` });
      }
    }
    const made = await t.createPerson({
      username: u.userName,
      email: u.email,
      displayName: u.displayName,
      role: "member",
      orgId: null,
      teamId: null,
      passwordHash: oidcPasswordSentinel,
    });
    await this.deps.accounts.bind({
      userId: made.id,
      source: "scim",
      externalId: u.externalId ?? made.id,
      dn: null,
      groups: [],
      suspendedByDirectory: !u.active,
    });
    await this.deps.audit.record(
      actorFor(token),
      "person.create",
      {
        kind: "person",
        id: made.id,
        orgId: null,
      },
      null,
      made,
    );
    return u.active ? made : await this.#setActive(made, false, token);
  }

  /** Makes the person what the resource says (PUT, or a PATCH's result). */
  async replace(p: Person, r: Json, token: string): Promise<Person> {
    const u = readUser(r);
    const t = this.deps.tenancy;
    if (u.userName.toLowerCase() !== p.username) {
      throw new AppError(
        "invalid_request",
        { detail: "userName cannot be changed here" },
        "userName",
      );
    }
    if (u.email && u.email !== p.email) {
      for (const other of t.people.values()) {
        if (other.id !== p.id && other.email === u.email) {
          throw new AppError("conflict", { detail: `another person has the email ${u.email}` });
        }
      }
    }
    let after = p;
    if (u.email !== p.email || (u.displayName && u.displayName !== p.displayName)) {
      after = await t.updatePerson(p.id, {
        email: u.email,
        ...(u.displayName ? { displayName: u.displayName } : {}),
      });
      await this.deps.audit.record(
        actorFor(token),
        "person.update",
        {
          kind: "person",
          id: p.id,
          orgId: p.orgId,
        },
        p,
        after,
      );
    }
    const bound = await this.deps.accounts.ofPerson(p.id);
    if (!bound) {
      // An OIDC person the provider now provisions: bound from here on.
      await this.deps.accounts.bind({
        userId: p.id,
        source: "scim",
        externalId: u.externalId ?? p.id,
        dn: null,
        groups: [],
      });
    } else if (u.externalId && u.externalId !== bound.externalId) {
      await this.deps.accounts.update(p.id, { externalId: u.externalId });
    }
    return (after.state === "active") === u.active
      ? after
      : await this.#setActive(after, u.active, token);
  }

  /** DELETE: suspended, never deleted (usage and audit rows keep their person). */
  async deprovision(p: Person, token: string): Promise<void> {
    if (p.state === "active") await this.#setActive(p, false, token);
  }

  async #setActive(p: Person, active: boolean, token: string): Promise<Person> {
    const after = await this.deps.tenancy.updatePerson(p.id, {
      state: active ? "active" : "suspended",
    });
    await this.deps.accounts.update(p.id, { suspendedByDirectory: !active });
    if (!active) await this.deps.sessions.revokeAllOf(p.id);
    await this.deps.audit.record(
      actorFor(token),
      active ? "person.reinstate" : "person.suspend",
      { kind: "person", id: p.id, orgId: p.orgId },
      p,
      after,
    );
    return after;
  }

  async #groupsOf(userId: string) {
    const rows = await this.deps.store.db.select().from(scimGroups);
    return rows.filter((g) => g.members.includes(userId));
  }

  /** Role and place from the SCIM groups the person is in, as oidc.roles/memberships say. */
  async placeByGroups(userId: string, token: string): Promise<void> {
    const p = this.deps.tenancy.people.get(userId);
    if (!p || p.signIn === "local") return;
    const groups = (await this.#groupsOf(userId)).flatMap((g) =>
      [g.displayName, g.externalId ?? ""].filter(Boolean)
    );
    const mapped = await placeFromGroups(this.deps.tenancy, this.deps.rules, groups);
    if (p.role === mapped.role && p.orgId === mapped.orgId && p.teamId === mapped.teamId) return;
    const after = await this.deps.tenancy.updatePerson(userId, mapped);
    await this.deps.sessions.revokeAllOf(userId);
    await this.deps.audit.record(
      actorFor(token),
      "person.update",
      {
        kind: "person",
        id: userId,
        orgId: after.orgId ?? p.orgId,
      },
      p,
      after,
    );
  }
}

/** The store's group row, by id. */
export async function groupRow(store: Store, id: string) {
  const [row] = await store.db.select().from(scimGroups).where(eq(scimGroups.id, id));
  return row;
}
