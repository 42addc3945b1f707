/** Who the caller is: the credential, and the person behind it if any. */
import type { AdminDeps } from "./admin_deps.ts";
import type { AdminRegistry } from "./registry.ts";

export function meRoutes(r: AdminRegistry, deps: Pick<AdminDeps, "people">): void {
  r.add({
    method: "get",
    path: "/me",
    tag: "me",
    summary: "Who the credential is, and their person",
    access: "anyone signed in",
  }, (c, { actor }) =>
    c.json({
      actor,
      person: actor.personId ? deps.people.tenancy.people.get(actor.personId) ?? null : null,
    }));
}
