/**
 * Sign-in with a directory name or mail and password, beside OIDC: the person is found with the
 * service account, their password proved by their own bind, and their account bound to the
 * directory's stable id (created at first sign-in when `auth.ldap.create_accounts`). Groups give
 * the role and place, as `oidc.roles`/`oidc.memberships` do. A directory that cannot be reached
 * or is set up wrongly turns this sign-in off with the reason; local accounts keep working. The
 * gateway's own throttle (auth/signin.ts) runs before anything here, so the form cannot be used
 * to trip the directory's lockout of a real account.
 */
import type { Clock } from "../../../core/clock.ts";
import type { Logger } from "../../../core/log.ts";
import type { AuditLog } from "../../audit/audit.ts";
import type { Actor } from "../../tenancy/access.ts";
import type { Person, Tenancy } from "../../tenancy/tenancy.ts";
import type { DirectoryAccounts } from "../directory_accounts.ts";
import { placeFromGroups } from "../group_places.ts";
import { directoryPasswordSentinel } from "../passwords.ts";
import type { LdapConfig } from "./ldap_config.ts";
import {
  type DirectoryEntry,
  type DirectorySession,
  openDirectory,
  verifyBind,
} from "./directory_client.ts";

export interface DirectoryStatus {
  configured: boolean;
  ok: boolean;
  label: string;
  reason: string | null;
  flavor?: string;
  server?: string;
  create_accounts?: boolean;
  last_sync?: SyncReport | null;
}

/** What the last sync did, or why it changed nothing. */
export interface SyncReport {
  at: number;
  bound: number;
  suspended: number;
  reinstated: number;
  updated: number;
  /** Set when the sync was refused or failed: nothing was changed. */
  refused: string | null;
}

export interface DirectoryDeps {
  config: LdapConfig | null;
  clock: Clock;
  logger: Logger;
  tenancy: Tenancy;
  accounts: DirectoryAccounts;
  audit?: AuditLog;
}

const retryMs = 30_000;

export class DirectorySignIn {
  #reason: string | null = null;
  #ok = false;
  #checkedAt = -Infinity;
  #flavor: string | undefined;
  #server: string | undefined;
  lastSync: SyncReport | null = null;

  constructor(readonly deps: DirectoryDeps) {
    if (deps.config?.error) {
      this.#reason = deps.config.error;
      deps.logger.error("directory sign-in is off", { reason: this.#reason });
    }
  }

  get configured(): boolean {
    return this.deps.config !== null;
  }

  /** Whether the form should try the directory: set up, and not known to be broken. */
  get usable(): boolean {
    return this.deps.config !== null && !this.deps.config.error;
  }

  status(): DirectoryStatus {
    const c = this.deps.config;
    if (!c) return { configured: false, ok: false, label: "", reason: "not configured" };
    return {
      configured: true,
      ok: this.#ok && !c.error,
      label: c.label,
      reason: this.#reason,
      ...(this.#flavor ? { flavor: this.#flavor } : {}),
      ...(this.#server ? { server: this.#server } : {}),
      create_accounts: c.createAccounts,
      last_sync: this.lastSync,
    };
  }

  /** Reaches the directory now and then (at most every 30 s), keeping the reason when it fails. */
  async check(): Promise<boolean> {
    if (!this.usable) return false;
    const now = this.deps.clock.now();
    if (now - this.#checkedAt < retryMs) return this.#ok;
    this.#checkedAt = now;
    try {
      const s = await this.open();
      await s.close();
      return true;
    } catch {
      return false;
    }
  }

  /** A session with the service account bound; its failure is this sign-in's reason. */
  async open(): Promise<DirectorySession> {
    try {
      const s = await openDirectory(this.deps.config!);
      this.#ok = true;
      this.#reason = null;
      this.#flavor = s.flavor;
      this.#server = s.server.url;
      return s;
    } catch (e) {
      this.#ok = false;
      this.#reason = (e as Error).message;
      this.deps.logger.error("the directory is unavailable", { reason: this.#reason });
      throw e;
    }
  }

  /**
   * The person whose directory password this is, or null (unknown, wrong password, disabled,
   * suspended here, or not allowed an account). The caller has already throttled the attempt.
   */
  async authenticate(login: string, password: string): Promise<Person | null> {
    if (!this.usable || password.length === 0 || !login.trim()) return null;
    let s: DirectorySession;
    try {
      s = await this.open();
    } catch {
      return null;
    }
    try {
      const found = await s.findByLogin(login.trim());
      // Two people answering to one name: neither is signed in as the other.
      if (found.length !== 1) return null;
      const entry = found[0]!;
      if (entry.disabled) return null;
      if (!(await verifyBind(this.deps.config!, s.server, entry.dn, password))) return null;
      return await this.#bindPerson(entry, await s.groupsOf(entry.dn));
    } finally {
      await s.close();
    }
  }

  async #bindPerson(entry: DirectoryEntry, groups: string[]): Promise<Person | null> {
    const c = this.deps.config!;
    const t = this.deps.tenancy;
    const bound = await this.deps.accounts.byExternal("ldap", entry.id);
    const mapped = await placeFromGroups(t, c, groups);
    if (!bound) {
      if (!c.createAccounts) {
        this.deps.logger.info("a directory person has no account here", { dn: entry.dn });
        return null;
      }
      let made: Person;
      try {
        made = await t.createPerson({
          username: entry.login.toLowerCase(),
          email: entry.email,
          displayName: entry.displayName,
          role: mapped.role,
          orgId: mapped.orgId,
          teamId: mapped.teamId,
          passwordHash: directoryPasswordSentinel,
        });
      } catch (e) {
        // A local account already has that name: a name is not an identity, so no takeover.
        this.deps.logger.warn("a directory person's account could not be made", {
          dn: entry.dn,
          reason: (e as Error).message,
        });
        return null;
      }
      await this.deps.accounts.bind({
        userId: made.id,
        source: "ldap",
        externalId: entry.id,
        dn: entry.dn,
        groups,
      });
      await this.record("person.create", null, made);
      return made;
    }
    const person = t.people.get(bound.userId);
    if (!person || person.state !== "active") return null;
    await this.deps.accounts.update(person.id, { dn: entry.dn, groups });
    return await this.follow(person, mapped, entry.displayName);
  }

  /** Role and place follow the groups; a local-password account keeps its own. */
  async follow(
    person: Person,
    mapped: { role: Person["role"]; orgId: string | null; teamId: string | null },
    displayName: string | null,
  ): Promise<Person> {
    if (person.signIn === "local") return person;
    const unchanged = person.role === mapped.role && person.orgId === mapped.orgId &&
      person.teamId === mapped.teamId && (!displayName || person.displayName === displayName);
    if (unchanged) return person;
    const after = await this.deps.tenancy.updatePerson(person.id, {
      role: mapped.role,
      orgId: mapped.orgId,
      teamId: mapped.teamId,
      ...(displayName ? { displayName } : {}),
    });
    await this.record("person.update", person, after);
    return after;
  }

  /** The directory acts for the person: creations and changes are on record. */
  async record(action: string, before: Person | null, after: Person): Promise<void> {
    const actor: Actor = {
      kind: "system",
      id: "ldap",
      name: `directory ${this.deps.config?.label ?? "ldap"}`,
      role: "administrator",
      personId: after.id,
      orgId: null,
      teamId: null,
      readOnly: false,
    };
    await this.deps.audit?.record(
      actor,
      action,
      { kind: "person", id: after.id, orgId: after.orgId ?? before?.orgId ?? null },
      before,
      after,
    );
  }
}
