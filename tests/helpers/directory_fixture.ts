/** Directory settings for a test's slapd, and the sign-in form as a browser posts it. */
import type { Harness } from "./harness.ts";
import { baseDn, serviceDn, servicePassword, type Slapd } from "./slapd.ts";
import { buildLdapConfig, type LdapValues } from "../../server/auth/ldap/ldap_config.ts";

export function ldapValues(d: Slapd, over: Partial<LdapValues> = {}): Omit<
  LdapValues,
  "ldapBindPasswordFile"
> {
  return {
    ldapUrls: d.url,
    ldapCa: d.caPem,
    ldapAllowPlain: false,
    ldapBindDn: serviceDn,
    ldapBaseDn: `ou=people,${baseDn}`,
    ldapGroupBaseDn: `ou=groups,${baseDn}`,
    ldapUserFilter: "(&(objectClass=inetOrgPerson)(!(employeeType=disabled)))",
    ldapLoginAttributes: "uid,mail",
    ldapFlavor: "auto",
    ldapCreateAccounts: true,
    ldapSyncIntervalMs: 15 * 60_000,
    ldapTimeoutMs: 5_000,
    ldapLabel: "Example directory",
    ldapRoles: { administrator: ["llm-admins"] },
    ldapMemberships: { research: "team:Lab/Research" },
    ...over,
  };
}

export function ldapConfig(d: Slapd, over: Partial<LdapValues> = {}, password = servicePassword) {
  return buildLdapConfig(ldapValues(d, over), {
    bindPassword: password,
    ca: over.ldapCa ?? d.caPem,
  });
}

export async function login(h: Harness, name: string, password: string): Promise<Response> {
  return await h.app.request("/auth/login", {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": "203.0.113.9" },
    body: JSON.stringify({ email: name, password }),
  });
}
