/** The state of sign-in: which ways work (local, OIDC), and why one does not. */
import type { AppDeps } from "../../deps.ts";
import { requireRead } from "../../tenancy/access.ts";
import type { AdminRegistry } from "./registry.ts";

export function signInRoutes(r: AdminRegistry, deps: Pick<AppDeps, "people">): void {
  const staff = { orgId: null, teamId: null };
  r.add({
    method: "get",
    path: "/sign-in",
    tag: "sign-in",
    summary: "Which ways of signing in work, and why one does not",
    access: "administrator, operator",
  }, async (c, { actor }) => {
    requireRead(actor, "staff", staff, c.req.path);
    await deps.people.oidc.discover();
    return c.json({
      local: true,
      signup_open: deps.people.signupOpen,
      oidc: deps.people.oidc.status(),
    });
  });
}
