/**
 * Who may do what, where. Every admin route asks here with the actor and the place of the thing
 * it touches; a refusal for another tenant's object is a 404, so ids cannot be probed.
 *
 * - administrator: everything.
 * - operator: models, nodes, settings; reads the tree, limits and usage; never people or keys.
 * - tenant_admin: people, projects, keys and limits inside their organisation (no team) or team.
 * - member: their own keys and usage; reads their part of the tree.
 * - viewer: reads what a tenant administrator of the same scope reads; changes nothing.
 */
import { AppError } from "../../core/errors.ts";
import type { Place, Role } from "./tenancy.ts";

export interface Actor {
  kind: "token" | "session" | "key" | "system";
  id: string;
  name: string;
  role: Role;
  /** The person behind a session or key. */
  personId: string | null;
  orgId: string | null;
  teamId: string | null;
  /** An API key on the admin API reads; it never changes anything. */
  readOnly: boolean;
}

/** True when the place lies inside the actor's tenant (their org, or their team). */
export function inTenant(actor: Actor, place: Place): boolean {
  if (actor.role === "administrator") return true;
  if (!actor.orgId || place.orgId !== actor.orgId) return false;
  return !actor.teamId || place.teamId === actor.teamId;
}

export type Area = "tree" | "people" | "keys" | "limits" | "usage" | "audit" | "staff";

/** May the actor read things of `area` at `place`? */
export function canRead(actor: Actor, area: Area, place: Place): boolean {
  switch (actor.role) {
    case "administrator":
      return true;
    case "operator":
      return area === "tree" || area === "limits" || area === "usage" || area === "staff";
    case "tenant_admin":
    case "viewer":
      if (area === "staff") return false;
      if (area === "audit" && actor.role === "viewer") return false;
      // An org-level thing (no team) is readable by a team's people too: their org's name.
      if (area === "tree" && place.teamId === null && place.orgId === actor.orgId) return true;
      return inTenant(actor, place);
    case "member":
      if (area === "tree") {
        return place.orgId === actor.orgId &&
          (!actor.teamId || place.teamId === null || place.teamId === actor.teamId);
      }
      if (area === "people" || area === "keys" || area === "usage" || area === "limits") {
        return place.personId === actor.personId && actor.personId !== null;
      }
      return false;
  }
}

/** May the actor change things of `area` at `place`? */
export function canWrite(actor: Actor, area: Area, place: Place): boolean {
  if (actor.readOnly) return false;
  switch (actor.role) {
    case "administrator":
      return true;
    case "operator":
      return area === "staff";
    case "tenant_admin":
      if (area === "staff" || area === "audit" || area === "usage") return false;
      // A team's administrator cannot change their org, only things inside the team.
      if (actor.teamId && place.teamId === null) return false;
      return inTenant(actor, place);
    case "member":
      return area === "keys" && place.personId === actor.personId && actor.personId !== null;
    case "viewer":
      return false;
  }
}

export function requireRead(actor: Actor, area: Area, place: Place, path: string): void {
  if (!canRead(actor, area, place)) throw new AppError("not_found", { path });
}

/** Readable but not writable is 403 (the actor knows it exists); unreadable stays 404. */
export function requireWrite(actor: Actor, area: Area, place: Place, path: string): void {
  if (canWrite(actor, area, place)) return;
  requireRead(actor, area, place, path);
  throw new AppError("forbidden");
}

/** Roles an actor may hand out: never wider than their own, and staff roles only by an administrator. */
export function canGrant(actor: Actor, role: Role): boolean {
  if (actor.role === "administrator") return true;
  if (actor.role === "tenant_admin") {
    return role === "tenant_admin" || role === "member" || role === "viewer";
  }
  return false;
}
