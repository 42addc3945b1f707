/**
 * `auth.ldap`: sign-in against an LDAP directory or Active Directory. Resolved once at start
 * (ldap_config.ts); a setting that cannot be used turns directory sign-in off on that control
 * plane with the reason, and nothing else.
 */
import { z } from "zod";
import { bool, int, oneOf, text } from "../../../core/settings.ts";
import { mapping } from "../people_settings.ts";

export const ldapSettings = {
  ldapUrls: text(
    "auth.ldap.urls",
    "",
    "Directory servers tried in turn, comma-separated: ldaps://host:636 or ldap://host:389 (StartTLS) (empty: no directory sign-in)",
  ),
  ldapCa: text(
    "auth.ldap.ca",
    "",
    "The CA that signed the directory's certificates: PEM text, or a file holding it (empty: the system's CAs)",
  ),
  ldapAllowPlain: bool(
    "auth.ldap.allow_plain",
    false,
    "Let ldap:// servers be used without StartTLS: passwords then cross the network in clear",
  ),
  ldapBindDn: text(
    "auth.ldap.bind_dn",
    "",
    "The service account that searches the directory (a DN, or user@domain on Active Directory)",
  ),
  ldapBindPasswordFile: text(
    "auth.ldap.bind_password_file",
    "",
    "File holding the service account's password",
  ),
  ldapBaseDn: text(
    "auth.ldap.base_dn",
    "",
    "Where people are searched for, e.g. dc=example,dc=com",
  ),
  ldapGroupBaseDn: text(
    "auth.ldap.group_base_dn",
    "",
    "Where groups are searched for (empty: auth.ldap.base_dn)",
  ),
  ldapUserFilter: text(
    "auth.ldap.user_filter",
    "(objectClass=person)",
    "Who may sign in: an LDAP filter every person must match; one who stops matching is suspended at the next sync",
  ),
  ldapLoginAttributes: text(
    "auth.ldap.login_attributes",
    "uid,mail,sAMAccountName,userPrincipalName",
    "Attributes a person's sign-in name is looked up by, comma-separated",
  ),
  ldapFlavor: oneOf(
    "auth.ldap.flavor",
    ["auto", "active_directory", "openldap"],
    "auto",
    "What the directory is: auto reads the server's root DSE",
  ),
  ldapCreateAccounts: bool(
    "auth.ldap.create_accounts",
    false,
    "Create an account at a directory person's first sign-in (else only accounts already bound)",
  ),
  ldapSyncIntervalMs: int(
    "auth.ldap.sync_interval_ms",
    15 * 60_000,
    "How often the leader reads the directory again (suspends, reinstates, roles), in ms",
    { min: 10_000 },
  ),
  ldapTimeoutMs: int(
    "auth.ldap.timeout_ms",
    5_000,
    "How long one directory server may take to answer, in ms",
    { min: 100 },
  ),
  ldapLabel: text("auth.ldap.label", "directory", "Name of the directory shown to people"),
  ldapRoles: mapping(
    "auth.ldap.roles",
    "Role → directory groups that grant it (a group's cn or DN), as oidc.roles",
    z.array(z.string()),
  ),
  ldapMemberships: mapping(
    "auth.ldap.memberships",
    "Directory group (cn or DN) → place in the tree: org:NAME or team:ORG/TEAM",
    z.string(),
  ),
};
