/**
 * A directory setting tried before it is kept (`POST /api/v1/auth/ldap/test`): each server
 * reached, secured and bound in turn, then how many people the user filter lets sign in and how
 * many are in each group the mappings name. Nothing is changed and nothing is kept.
 */
import { buildLdapConfig, type LdapConfig, type LdapValues } from "./ldap_config.ts";
import { DirectoryUnreachable, openDirectory, type ServerTrial } from "./directory_client.ts";

export interface DirectoryTrial {
  ok: boolean;
  error: string | null;
  servers: ServerTrial[];
  flavor: string | null;
  people: number | null;
  groups: Record<string, number>;
}

/** The setting to try: what the body gives over what this control plane runs with. */
export type TrialInput = Partial<Omit<LdapValues, "ldapBindPasswordFile">> & {
  bindPassword?: string;
};

export function trialConfig(current: LdapConfig | null, input: TrialInput): LdapConfig {
  const c = current;
  return buildLdapConfig({
    ldapUrls: input.ldapUrls ?? c?.servers.map((s) => s.url).join(",") ?? "",
    ldapCa: input.ldapCa ?? c?.ca ?? "",
    ldapAllowPlain: input.ldapAllowPlain ?? c?.servers.some((s) => s.security === "plain") ??
      false,
    ldapBindDn: input.ldapBindDn ?? c?.bindDn ?? "",
    ldapBaseDn: input.ldapBaseDn ?? c?.baseDn ?? "",
    ldapGroupBaseDn: input.ldapGroupBaseDn ?? c?.groupBaseDn ?? "",
    ldapUserFilter: input.ldapUserFilter ?? c?.userFilter ?? "(objectClass=person)",
    ldapLoginAttributes: input.ldapLoginAttributes ?? c?.loginAttributes.join(",") ??
      "uid,mail,sAMAccountName,userPrincipalName",
    ldapFlavor: input.ldapFlavor ?? c?.flavor ?? "auto",
    ldapCreateAccounts: input.ldapCreateAccounts ?? c?.createAccounts ?? false,
    ldapSyncIntervalMs: c?.syncIntervalMs ?? 15 * 60_000,
    ldapTimeoutMs: input.ldapTimeoutMs ?? c?.timeoutMs ?? 5_000,
    ldapLabel: input.ldapLabel ?? c?.label ?? "directory",
    ldapRoles: input.ldapRoles ?? c?.roles ?? {},
    ldapMemberships: input.ldapMemberships ?? c?.memberships ?? {},
  }, {
    bindPassword: input.bindPassword ?? c?.bindPassword ?? "",
    ca: input.ldapCa ?? c?.ca ?? "",
  });
}

export async function tryDirectory(config: LdapConfig): Promise<DirectoryTrial> {
  const none = { flavor: null, people: null, groups: {} };
  if (config.error) return { ok: false, error: config.error, servers: [], ...none };
  // Every server is tried, not only the first that answers: a setting kept must work on each.
  const servers: ServerTrial[] = [];
  let counted: Omit<DirectoryTrial, "ok" | "error" | "servers"> | undefined;
  for (const server of config.servers) {
    try {
      const s = await openDirectory({ ...config, servers: [server] });
      servers.push(...s.trials);
      try {
        counted ??= await count(config, s);
      } finally {
        await s.close();
      }
    } catch (e) {
      if (e instanceof DirectoryUnreachable) servers.push(...e.trials);
      else {servers.push({
          url: server.url,
          reached: true,
          secured: true,
          bound: true,
          error: (e as Error).message,
        });}
    }
  }
  const failed = servers.filter((s) => s.error);
  return {
    ok: failed.length === 0 && counted !== undefined,
    error: failed.length ? failed.map((s) => `${s.url}: ${s.error}`).join("; ") : null,
    servers,
    ...(counted ?? none),
  };
}

async function count(
  config: LdapConfig,
  s: Awaited<ReturnType<typeof openDirectory>>,
): Promise<Omit<DirectoryTrial, "ok" | "error" | "servers">> {
  const people = (await s.everyone()).size;
  const named = new Set([
    ...Object.values(config.roles).flat(),
    ...Object.keys(config.memberships),
  ]);
  const groups: Record<string, number> = {};
  for (const g of named) groups[g] = await s.countMembers(g);
  return { flavor: s.flavor, people, groups };
}
