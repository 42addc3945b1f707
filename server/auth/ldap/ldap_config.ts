/**
 * The directory's settings resolved once at start. Anything unusable (a URL, a missing password
 * file, a CA that does not parse) is kept as `error` instead of thrown: a cluster setting must
 * never stop the control plane that would repair it, so only directory sign-in goes off.
 */
import { x509 } from "../../tls/x509.ts";
import type { GroupRules } from "../group_places.ts";

export type LdapFlavor = "auto" | "active_directory" | "openldap";

export interface LdapServer {
  url: string;
  /** ldaps: TLS from the start; starttls: ldap:// upgraded before any bind; plain: allowed in clear. */
  security: "ldaps" | "starttls" | "plain";
  host: string;
}

export interface LdapConfig extends GroupRules {
  servers: LdapServer[];
  /** PEM of the CA(s) that signed the servers' certificates; null: the system's. */
  ca: string | null;
  bindDn: string;
  bindPassword: string;
  baseDn: string;
  groupBaseDn: string;
  userFilter: string;
  loginAttributes: string[];
  flavor: LdapFlavor;
  createAccounts: boolean;
  syncIntervalMs: number;
  timeoutMs: number;
  label: string;
  /** Why directory sign-in is off on this control plane; absent when the setting is usable. */
  error?: string;
}

/** The settings as the resolved config holds them. */
export interface LdapValues {
  ldapUrls: string;
  ldapCa: string;
  ldapAllowPlain: boolean;
  ldapBindDn: string;
  ldapBindPasswordFile: string;
  ldapBaseDn: string;
  ldapGroupBaseDn: string;
  ldapUserFilter: string;
  ldapLoginAttributes: string;
  ldapFlavor: LdapFlavor;
  ldapCreateAccounts: boolean;
  ldapSyncIntervalMs: number;
  ldapTimeoutMs: number;
  ldapLabel: string;
  ldapRoles: Record<string, string[]>;
  ldapMemberships: Record<string, string>;
}

/** Reads the password and CA files the settings name; null when no server is set. */
export async function ldapConfigFrom(v: LdapValues): Promise<LdapConfig | null> {
  if (!v.ldapUrls.trim()) return null;
  let bindPassword = "";
  let ca = "";
  const errors: string[] = [];
  if (v.ldapBindPasswordFile) {
    try {
      bindPassword = (await Deno.readTextFile(v.ldapBindPasswordFile)).replace(/\r?\n$/, "");
    } catch (e) {
      errors.push(
        `cannot read auth.ldap.bind_password_file ${v.ldapBindPasswordFile}: ${(e as Error).name}`,
      );
    }
  }
  if (v.ldapCa.trim() && !v.ldapCa.includes("-----BEGIN")) {
    try {
      ca = await Deno.readTextFile(v.ldapCa.trim());
    } catch (e) {
      errors.push(`cannot read auth.ldap.ca ${v.ldapCa.trim()}: ${(e as Error).name}`);
    }
  } else ca = v.ldapCa;
  const config = buildLdapConfig(v, { bindPassword, ca });
  if (errors.length) config.error = [...errors, config.error].filter(Boolean).join("; ");
  return config;
}

/** The config from values and the secrets already read; what is wrong goes in `error`. */
export function buildLdapConfig(
  v: Omit<LdapValues, "ldapBindPasswordFile">,
  secrets: { bindPassword: string; ca: string },
): LdapConfig {
  const problems: string[] = [];
  const servers: LdapServer[] = [];
  for (const raw of v.ldapUrls.split(",").map((u) => u.trim()).filter(Boolean)) {
    const server = parseServer(raw, v.ldapAllowPlain);
    if (typeof server === "string") problems.push(server);
    else servers.push(server);
  }
  if (!servers.length && !problems.length) problems.push("auth.ldap.urls names no server");
  if (!v.ldapBaseDn.trim()) problems.push("auth.ldap.base_dn is not set");
  if (!v.ldapBindDn.trim()) problems.push("auth.ldap.bind_dn is not set");
  // An empty password is an unauthenticated bind, which "succeeds" and searches as nobody.
  if (!secrets.bindPassword) problems.push("the service account's password is empty");
  if (!/^\(.*\)$/s.test(v.ldapUserFilter.trim())) {
    problems.push("auth.ldap.user_filter must be an LDAP filter in parentheses");
  }
  const loginAttributes = v.ldapLoginAttributes.split(",").map((a) => a.trim()).filter(Boolean);
  if (!loginAttributes.length || loginAttributes.some((a) => !/^[A-Za-z][\w-]*$/.test(a))) {
    problems.push("auth.ldap.login_attributes must be attribute names, comma-separated");
  }
  const ca = secrets.ca.trim() ? secrets.ca : null;
  if (ca) {
    const why = caProblem(ca);
    if (why) problems.push(why);
  }
  return {
    servers,
    ca,
    bindDn: v.ldapBindDn.trim(),
    bindPassword: secrets.bindPassword,
    baseDn: v.ldapBaseDn.trim(),
    groupBaseDn: v.ldapGroupBaseDn.trim() || v.ldapBaseDn.trim(),
    userFilter: v.ldapUserFilter.trim(),
    loginAttributes,
    flavor: v.ldapFlavor,
    createAccounts: v.ldapCreateAccounts,
    syncIntervalMs: v.ldapSyncIntervalMs,
    timeoutMs: v.ldapTimeoutMs,
    label: v.ldapLabel,
    roles: v.ldapRoles,
    memberships: v.ldapMemberships,
    ...(problems.length ? { error: problems.join("; ") } : {}),
  };
}

function parseServer(raw: string, allowPlain: boolean): LdapServer | string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `'${raw}' is not a URL`;
  }
  if (url.protocol !== "ldaps:" && url.protocol !== "ldap:") {
    return `'${raw}' is neither ldaps:// nor ldap://`;
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const port = url.port || (url.protocol === "ldaps:" ? "636" : "389");
  const clean = `${url.protocol}//${url.hostname}:${port}`;
  if (url.protocol === "ldaps:") return { url: clean, security: "ldaps", host };
  return { url: clean, security: allowPlain ? "plain" : "starttls", host };
}

function caProblem(pem: string): string | undefined {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g);
  if (!blocks) return "auth.ldap.ca holds no PEM certificate";
  for (const b of blocks) {
    try {
      new x509.X509Certificate(b);
    } catch (e) {
      return `auth.ldap.ca holds a certificate that does not parse: ${(e as Error).message}`;
    }
  }
  return undefined;
}
