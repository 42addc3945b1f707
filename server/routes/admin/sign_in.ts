/**
 * The state of sign-in: which ways work (local, OIDC, the directory), and why one does not; and
 * a directory setting tried before it is kept.
 */
import { z } from "zod";
import type { AdminDeps } from "./admin_deps.ts";
import { requireRead, requireWrite } from "../../tenancy/access.ts";
import { trialConfig, tryDirectory } from "../../auth/ldap/try_directory.ts";
import type { AdminRegistry } from "./registry.ts";

const staff = { orgId: null, teamId: null };

/** A directory setting to try, named as under `auth.ldap`; what is left out is the running one's. */
const ldapTrial = z.strictObject({
  urls: z.string().max(2_000).optional(),
  ca: z.string().max(64_000).optional(),
  allow_plain: z.boolean().optional(),
  bind_dn: z.string().max(1_000).optional(),
  bind_password: z.string().max(1_000).optional(),
  base_dn: z.string().max(1_000).optional(),
  group_base_dn: z.string().max(1_000).optional(),
  user_filter: z.string().max(2_000).optional(),
  login_attributes: z.string().max(500).optional(),
  flavor: z.enum(["auto", "active_directory", "openldap"]).optional(),
  timeout_ms: z.number().int().min(100).max(60_000).optional(),
  roles: z.record(z.string(), z.array(z.string())).optional(),
  memberships: z.record(z.string(), z.string()).optional(),
});

export function signInRoutes(r: AdminRegistry, deps: Pick<AdminDeps, "people">): void {
  r.add({
    method: "get",
    path: "/sign-in",
    tag: "sign-in",
    summary: "Which ways of signing in work, and why one does not",
    access: "administrator, operator",
  }, async (c, { actor }) => {
    requireRead(actor, "staff", staff, c.req.path);
    await deps.people.oidc.discover();
    await deps.people.directory.check();
    return c.json({
      local: true,
      signup_open: deps.people.signupOpen,
      oidc: deps.people.oidc.status(),
      ldap: deps.people.directory.status(),
    });
  });

  r.add({
    method: "post",
    path: "/auth/ldap/test",
    tag: "sign-in",
    summary:
      "Try a directory setting before it is kept: each server reached and bound, how many people may sign in, per group",
    body: ldapTrial,
    access: "administrator, operator",
  }, async (c, { actor, body }) => {
    requireWrite(actor, "staff", staff, c.req.path);
    const config = trialConfig(deps.people.directory.deps.config, {
      ...(body.urls !== undefined ? { ldapUrls: body.urls } : {}),
      ...(body.ca !== undefined ? { ldapCa: body.ca } : {}),
      ...(body.allow_plain !== undefined ? { ldapAllowPlain: body.allow_plain } : {}),
      ...(body.bind_dn !== undefined ? { ldapBindDn: body.bind_dn } : {}),
      ...(body.bind_password !== undefined ? { bindPassword: body.bind_password } : {}),
      ...(body.base_dn !== undefined ? { ldapBaseDn: body.base_dn } : {}),
      ...(body.group_base_dn !== undefined ? { ldapGroupBaseDn: body.group_base_dn } : {}),
      ...(body.user_filter !== undefined ? { ldapUserFilter: body.user_filter } : {}),
      ...(body.login_attributes !== undefined
        ? { ldapLoginAttributes: body.login_attributes }
        : {}),
      ...(body.flavor !== undefined ? { ldapFlavor: body.flavor } : {}),
      ...(body.timeout_ms !== undefined ? { ldapTimeoutMs: body.timeout_ms } : {}),
      ...(body.roles !== undefined ? { ldapRoles: body.roles } : {}),
      ...(body.memberships !== undefined ? { ldapMemberships: body.memberships } : {}),
    });
    return c.json(await tryDirectory(config));
  });
}
