/**
 * The leader reads the directory every `auth.ldap.sync_interval_ms` (15 min): accounts the
 * directory no longer lets sign in (deleted, disabled, out of the user filter) are suspended and
 * their sessions ended; those it suspended and that are back are reinstated; roles and places
 * follow groups. The blast-radius guard: a sync that would suspend more than half the bound
 * accounts is refused whole and raises a notification, since a wrong base DN, a filter typo or a
 * directory half-restored from backup looks exactly like everyone leaving at once. A directory
 * that cannot be read changes nothing either: unreachable is not "deleted".
 */
import type { Notifier } from "../../notify/notifier.ts";
import type { Person } from "../../tenancy/tenancy.ts";
import type { DirectoryRow } from "../directory_accounts.ts";
import { placeFromGroups } from "../group_places.ts";
import type { DirectoryEntry, DirectorySession } from "./directory_client.ts";
import type { DirectorySignIn, SyncReport } from "./directory_sign_in.ts";

export interface SyncDeps {
  directory: DirectorySignIn;
  revokeSessions: (userId: string) => Promise<void>;
  notifier?: Pick<Notifier, "directorySyncRefused" | "directorySynced">;
}

interface Plan {
  suspend: { row: DirectoryRow; person: Person }[];
  reinstate: { row: DirectoryRow; person: Person; entry: DirectoryEntry }[];
  keep: { row: DirectoryRow; person: Person; entry: DirectoryEntry }[];
  active: number;
}

export class DirectorySync {
  #timer: ReturnType<typeof setInterval> | undefined;
  #running: Promise<SyncReport> | undefined;

  constructor(private readonly deps: SyncDeps) {}

  /** The leader's duty: a sync now and then every interval, until stopped. */
  start(): void {
    if (this.#timer || !this.deps.directory.usable) return;
    const every = this.deps.directory.deps.config!.syncIntervalMs;
    this.#timer = setInterval(() => void this.run().catch(() => {}), every);
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running?.catch(() => {});
  }

  /** One sync; two asked for at once are one. */
  run(): Promise<SyncReport> {
    this.#running ??= this.#sync().finally(() => this.#running = undefined);
    return this.#running;
  }

  async #sync(): Promise<SyncReport> {
    const d = this.deps.directory;
    const at = d.deps.clock.now();
    const empty = { at, bound: 0, suspended: 0, reinstated: 0, updated: 0 };
    if (!d.usable) return this.#done({ ...empty, refused: d.status().reason ?? "not configured" });
    let s: DirectorySession;
    try {
      s = await d.open();
    } catch (e) {
      return this.#refuse({
        ...empty,
        refused: `the directory cannot be read: ${(e as Error).message}`,
      });
    }
    try {
      const plan = this.#plan(await d.deps.accounts.all("ldap"), await s.everyone());
      const report = { ...empty, bound: plan.active + plan.reinstate.length };
      if (plan.suspend.length * 2 > plan.active) {
        return this.#refuse({
          ...report,
          refused:
            `it would suspend ${plan.suspend.length} of ${plan.active} directory accounts (more than half)`,
        });
      }
      for (const { row, person } of plan.suspend) await this.#suspend(row, person);
      for (const { row, person } of plan.reinstate) await this.#reinstate(row, person);
      let updated = 0;
      for (const { row, person, entry } of [...plan.keep, ...plan.reinstate]) {
        if (await this.#follow(s, row, d.deps.tenancy.people.get(person.id) ?? person, entry)) {
          updated++;
        }
      }
      this.deps.notifier?.directorySynced();
      return this.#done({
        ...report,
        suspended: plan.suspend.length,
        reinstated: plan.reinstate.length,
        updated,
        refused: null,
      });
    } finally {
      await s.close();
    }
  }

  #plan(rows: DirectoryRow[], everyone: Map<string, DirectoryEntry>): Plan {
    const people = this.deps.directory.deps.tenancy.people;
    const plan: Plan = { suspend: [], reinstate: [], keep: [], active: 0 };
    for (const row of rows) {
      const person = people.get(row.userId);
      if (!person) continue;
      const entry = everyone.get(row.externalId);
      const allowed = entry !== undefined && !entry.disabled;
      if (person.state === "active") {
        plan.active++;
        if (!allowed) plan.suspend.push({ row, person });
        else plan.keep.push({ row, person, entry });
      } else if (allowed && row.suspendedByDirectory) {
        // Only a suspension the directory made is the directory's to lift; an administrator's stays.
        plan.reinstate.push({ row, person, entry });
      }
    }
    return plan;
  }

  async #suspend(row: DirectoryRow, person: Person): Promise<void> {
    const d = this.deps.directory;
    const after = await d.deps.tenancy.updatePerson(person.id, { state: "suspended" });
    await d.deps.accounts.update(row.userId, { suspendedByDirectory: true });
    await this.deps.revokeSessions(person.id);
    await d.record("person.suspend", person, after);
  }

  async #reinstate(row: DirectoryRow, person: Person): Promise<void> {
    const d = this.deps.directory;
    const after = await d.deps.tenancy.updatePerson(person.id, { state: "active" });
    await d.deps.accounts.update(row.userId, { suspendedByDirectory: false });
    await d.record("person.reinstate", person, after);
  }

  /** Role, place and name follow the directory; true when something changed. */
  async #follow(
    s: DirectorySession,
    row: DirectoryRow,
    person: Person,
    entry: DirectoryEntry,
  ): Promise<boolean> {
    const d = this.deps.directory;
    const groups = await s.groupsOf(entry.dn);
    const mapped = await placeFromGroups(d.deps.tenancy, d.deps.config!, groups);
    const after = await d.follow(person, mapped, entry.displayName);
    const sameGroups = JSON.stringify(row.groups) === JSON.stringify(groups);
    if (!sameGroups || row.dn !== entry.dn) {
      await d.deps.accounts.update(row.userId, { dn: entry.dn, groups });
    }
    // A narrower role or another place takes effect at once, not when a session ends.
    if (after !== person) await this.deps.revokeSessions(person.id);
    return after !== person;
  }

  #refuse(report: SyncReport): SyncReport {
    const d = this.deps.directory;
    d.deps.logger.error("the directory sync was refused; nothing changed", {
      reason: report.refused,
    });
    this.deps.notifier?.directorySyncRefused(report.refused ?? "", { bound: report.bound });
    return this.#done(report);
  }

  #done(report: SyncReport): SyncReport {
    this.deps.directory.lastSync = report;
    return report;
  }
}
