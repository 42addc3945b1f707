/**
 * Which administration pages a person may open, from the same rules the admin API applies
 * (server/tenancy/access.ts). A page refused here answers 404, as the API does.
 */
import { type Actor, canRead } from "../tenancy/access.ts";

export type AdminPage =
  | "cluster"
  | "models"
  | "people"
  | "tree"
  | "keys"
  | "audit"
  | "settings"
  | "kb"
  | "mcp"
  | "guard";

const cluster = { orgId: null, teamId: null };

export function mayOpen(actor: Actor, page: AdminPage): boolean {
  const own = { orgId: actor.orgId, teamId: actor.teamId };
  switch (page) {
    case "cluster":
    case "models":
    case "settings":
    case "mcp":
      return canRead(actor, "staff", cluster);
    case "people":
    case "keys":
      // Members read only themselves: that is the profile and keys pages, not these.
      return actor.role === "administrator" ||
        ((actor.role === "tenant_admin" || actor.role === "viewer") &&
          canRead(actor, "people", own));
    case "tree":
    case "kb":
    // The API shows each the policies of the levels they may read, and lets change those below.
    case "guard":
      return actor.role !== "member";
    case "audit":
      return actor.role === "administrator" ||
        (actor.orgId !== null && canRead(actor, "audit", { orgId: actor.orgId, teamId: null }));
  }
}
