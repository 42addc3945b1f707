/** Where in the tree an API key sits, from its project and its owner. */
import type { ApiKeyInfo } from "../keys/keys.ts";
import type { Place, Tenancy } from "./tenancy.ts";

/** Its project's place, else its owner's; a key of neither is the cluster's. */
export function placeOfKey(
  deps: { people: { tenancy: Tenancy } },
  k: Pick<ApiKeyInfo, "userId" | "projectId">,
): Place {
  const t = deps.people.tenancy;
  const project = k.projectId ? t.projects.get(k.projectId) : undefined;
  const person = k.userId ? t.people.get(k.userId) : undefined;
  return {
    orgId: project?.orgId ?? person?.orgId ?? null,
    teamId: project?.teamId ?? person?.teamId ?? null,
    projectId: project?.id ?? null,
    personId: person?.id ?? null,
  };
}
