/**
 * Groups → a role and a place in the tree, one rule for every identity source (OIDC's claim,
 * the directory's groups, SCIM's): the widest role any group grants, and the first group that
 * names a place (`org:NAME` or `team:ORG/TEAM`, made when missing). Group names are compared
 * without case: directories do not agree on it.
 */
import type { Role, Tenancy } from "../tenancy/tenancy.ts";

export interface GroupRules {
  roles: Record<string, string[]>;
  memberships: Record<string, string>;
}

export interface GroupPlace {
  role: Role;
  orgId: string | null;
  teamId: string | null;
}

const roleOrder: Role[] = ["administrator", "operator", "tenant_admin", "member", "viewer"];

export async function placeFromGroups(
  tenancy: Tenancy,
  rules: GroupRules,
  groups: readonly string[],
): Promise<GroupPlace> {
  const held = new Set(groups.map((g) => g.toLowerCase()));
  const role =
    roleOrder.find((r) => (rules.roles[r] ?? []).some((g) => held.has(g.toLowerCase()))) ??
      "member";
  const places = new Map(
    Object.entries(rules.memberships).map(([g, place]) => [g.toLowerCase(), place]),
  );
  for (const g of groups) {
    const place = places.get(g.toLowerCase());
    const m = place ? /^(org|team):([^/]+)(?:\/(.+))?$/.exec(place) : null;
    if (!m) continue;
    let org = [...tenancy.orgs.values()].find((o) => o.name === m[2]);
    org ??= await tenancy.createOrg(m[2]!);
    if (m[1] === "org") return { role, orgId: org.id, teamId: null };
    if (!m[3]) continue;
    let team = [...tenancy.teams.values()].find((x) => x.orgId === org.id && x.name === m[3]);
    team ??= await tenancy.createTeam(org.id, m[3]);
    return { role, orgId: org.id, teamId: team.id };
  }
  return { role, orgId: null, teamId: null };
}
