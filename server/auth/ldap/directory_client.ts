/**
 * The directory as llmgw asks it, over `ldapts` (a maintained, dependency-light LDAP client for
 * Node that runs under Deno): servers tried in turn, TLS before any password is sent (LDAPS, or
 * StartTLS on ldap://, checked against `auth.ldap.ca`), the service account bound to search,
 * then a person found by a filter whose every user-typed value is escaped (RFC 4515), their
 * password proved by a bind of their own on a fresh connection, and their groups read (nested:
 * Active Directory's LDAP_MATCHING_RULE_IN_CHAIN, or a walk up `member` elsewhere).
 */
import { isIP } from "node:net";
import { Client, type Entry } from "ldapts";
import type { LdapConfig, LdapServer } from "./ldap_config.ts";
import { escapeFilterValue, guidFromBytes } from "./filter_escape.ts";

export type Flavor = "active_directory" | "openldap";

/** A person as the directory describes them. */
export interface DirectoryEntry {
  dn: string;
  /** The stable id: objectGUID (as a GUID string) on Active Directory, entryUUID elsewhere. */
  id: string;
  login: string;
  email: string | null;
  displayName: string | null;
  /** Active Directory's ACCOUNTDISABLE bit; elsewhere `auth.ldap.user_filter` says who may. */
  disabled: boolean;
}

/** One server tried: reached, secured and bound, or the reason it was not. */
export interface ServerTrial {
  url: string;
  reached: boolean;
  secured: boolean;
  bound: boolean;
  error: string | null;
}

/** A connection with the service account bound, on the first server that allowed it. */
export interface DirectorySession {
  server: LdapServer;
  flavor: Flavor;
  trials: ServerTrial[];
  findByLogin(login: string): Promise<DirectoryEntry[]>;
  /** Everyone the user filter lets sign in, keyed by stable id. */
  everyone(): Promise<Map<string, DirectoryEntry>>;
  groupsOf(dn: string): Promise<string[]>;
  /** The members of a group named by cn or DN, nested included, counted. */
  countMembers(group: string): Promise<number>;
  close(): Promise<void>;
}

const inChain = "1.2.840.113556.1.4.1941";
const adCapability = "1.2.840.113556.1.4.800";
const accountDisable = 2;
const maxNesting = 8;

function tlsOptions(config: LdapConfig, server: LdapServer) {
  return {
    ...(config.ca ? { ca: [config.ca] } : {}),
    host: server.host,
    // Node refuses an address as an SNI name; the certificate is then checked against the address.
    ...(isIP(server.host) ? {} : { servername: server.host }),
    rejectUnauthorized: true,
  };
}

/** Connected and secured (LDAPS or StartTLS), nothing bound yet. */
async function connect(config: LdapConfig, server: LdapServer, trial: ServerTrial) {
  const client = new Client({
    url: server.url,
    timeout: config.timeoutMs,
    connectTimeout: config.timeoutMs,
    ...(server.security === "ldaps" ? { tlsOptions: tlsOptions(config, server) } : {}),
  });
  try {
    if (server.security === "starttls") {
      await client.startTLS(tlsOptions(config, server));
      trial.reached = true;
    } else {
      // ldapts connects on the first operation: the root DSE read proves the server answers.
      await client.search("", { scope: "base", filter: "(objectClass=*)", attributes: ["1.1"] });
      trial.reached = true;
    }
    trial.secured = server.security !== "plain";
    return client;
  } catch (e) {
    await client.unbind().catch(() => {});
    throw e;
  }
}

function message(e: unknown): string {
  const err = e as Error;
  // ldapts names the LDAP result in the error's class (InvalidCredentialsError) and often
  // leaves only "Code: 0x31" as the message.
  const said = (err?.message ?? String(e)).replace(/^\s*Code: 0x[0-9a-f]+\s*$/i, "").trim();
  const text = [err?.name && err.name !== "Error" ? err.name : "", said].filter(Boolean).join(
    ": ",
  );
  // The client's messages name the DN at most, never a password; keep them short.
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/** Tries each server in turn; the first that is reached, secured and binds the service account. */
export async function openDirectory(config: LdapConfig): Promise<DirectorySession> {
  const trials: ServerTrial[] = [];
  for (const server of config.servers) {
    const trial: ServerTrial = {
      url: server.url,
      reached: false,
      secured: false,
      bound: false,
      error: null,
    };
    trials.push(trial);
    let client: Client | undefined;
    try {
      client = await connect(config, server, trial);
      if (!config.bindPassword) throw new Error("the service account's password is empty");
      await client.bind(config.bindDn, config.bindPassword);
      trial.bound = true;
      const flavor = config.flavor === "auto" ? await detectFlavor(client) : config.flavor;
      return session(config, server, client, flavor, trials);
    } catch (e) {
      trial.error = message(e);
      await client?.unbind().catch(() => {});
    }
  }
  throw new DirectoryUnreachable(trials);
}

export class DirectoryUnreachable extends Error {
  override name = "DirectoryUnreachable";
  constructor(readonly trials: ServerTrial[]) {
    super(
      trials.length
        ? trials.map((t) => `${t.url}: ${t.error}`).join("; ")
        : "no directory server is set",
    );
  }
}

async function detectFlavor(client: Client): Promise<Flavor> {
  const { searchEntries } = await client.search("", {
    scope: "base",
    filter: "(objectClass=*)",
    attributes: ["supportedCapabilities"],
  });
  const caps = [searchEntries[0]?.supportedCapabilities ?? []].flat().map(String);
  return caps.includes(adCapability) ? "active_directory" : "openldap";
}

/**
 * Proves a person's password with a bind of their own, on a connection of its own (the service
 * account's stays as it is). An empty password is refused here, before any bind: LDAP reads a
 * name with no password as an unauthenticated bind, which "succeeds".
 */
export async function verifyBind(
  config: LdapConfig,
  server: LdapServer,
  dn: string,
  password: string,
): Promise<boolean> {
  if (password.length === 0 || !dn) return false;
  const trial: ServerTrial = {
    url: server.url,
    reached: false,
    secured: false,
    bound: false,
    error: null,
  };
  const client = await connect(config, server, trial);
  try {
    await client.bind(dn, password);
    return true;
  } catch (e) {
    if ((e as Error).name === "InvalidCredentialsError") return false;
    throw e;
  } finally {
    await client.unbind().catch(() => {});
  }
}

function first(v: Entry[string] | undefined): string | null {
  const x = Array.isArray(v) ? v[0] : v;
  if (x === undefined) return null;
  return typeof x === "string" ? x : Buffer.from(x).toString("utf8");
}

function session(
  config: LdapConfig,
  server: LdapServer,
  client: Client,
  flavor: Flavor,
  trials: ServerTrial[],
): DirectorySession {
  const ad = flavor === "active_directory";
  const idAttr = ad ? "objectGUID" : "entryUUID";
  const enabledOnly = ad ? `(!(userAccountControl:1.2.840.113556.1.4.803:=${accountDisable}))` : "";
  const attributes = [
    idAttr,
    "mail",
    "cn",
    "displayName",
    "userAccountControl",
    ...config.loginAttributes,
  ];
  const toEntry = (e: Entry): DirectoryEntry | undefined => {
    const raw = e[idAttr];
    const idValue = Array.isArray(raw) ? raw[0] : raw;
    if (idValue === undefined) return undefined;
    const id = ad && typeof idValue !== "string"
      ? guidFromBytes(new Uint8Array(idValue))
      : String(idValue).toLowerCase();
    const login = config.loginAttributes.map((a) => first(e[a])).find((x) => x) ?? e.dn;
    const uac = Number(first(e.userAccountControl) ?? 0);
    return {
      dn: e.dn,
      id,
      login,
      email: first(e.mail)?.toLowerCase() ?? null,
      displayName: first(e.displayName) ?? first(e.cn),
      disabled: ad && (uac & accountDisable) !== 0,
    };
  };
  const search = async (base: string, filter: string, attrs: string[]) =>
    (await client.search(base, {
      scope: "sub",
      filter,
      attributes: attrs,
      paged: { pageSize: 500 },
      ...(ad ? { explicitBufferAttributes: ["objectGUID"] } : {}),
    })).searchEntries;

  const groupDn = async (group: string): Promise<string | undefined> => {
    if (group.includes("=")) return group;
    const found = await search(
      config.groupBaseDn,
      `(&(|(objectClass=group)(objectClass=groupOfNames)(objectClass=groupOfUniqueNames))(cn=${
        escapeFilterValue(group)
      }))`,
      ["cn"],
    );
    return found[0]?.dn;
  };

  return {
    server,
    flavor,
    trials,
    async findByLogin(login) {
      const v = escapeFilterValue(login);
      const any = config.loginAttributes.map((a) => `(${a}=${v})`).join("");
      const found = await search(
        config.baseDn,
        `(&${config.userFilter}${enabledOnly}(|${any}))`,
        attributes,
      );
      return found.map(toEntry).filter((x): x is DirectoryEntry => x !== undefined);
    },
    async everyone() {
      const found = await search(
        config.baseDn,
        `(&${config.userFilter}${enabledOnly})`,
        attributes,
      );
      const map = new Map<string, DirectoryEntry>();
      for (const e of found.map(toEntry)) if (e) map.set(e.id, e);
      return map;
    },
    async groupsOf(dn) {
      if (ad) {
        const found = await search(config.groupBaseDn, nestedGroupsFilter(dn), ["cn"]);
        return found.flatMap((g) => [first(g.cn) ?? "", g.dn]).filter(Boolean);
      }
      // OpenLDAP has no matching rule for chains: walk up, a level at a time, to a bound depth.
      const seen = new Map<string, string>();
      let frontier = [dn];
      for (let depth = 0; depth < maxNesting && frontier.length; depth++) {
        const any = frontier.map((d) => {
          const v = escapeFilterValue(d);
          return `(member=${v})(uniqueMember=${v})`;
        }).join("");
        const found = await search(config.groupBaseDn, `(|${any})`, ["cn"]);
        frontier = [];
        for (const g of found) {
          const key = g.dn.toLowerCase();
          if (seen.has(key)) continue;
          seen.set(key, first(g.cn) ?? "");
          frontier.push(g.dn);
        }
      }
      return [...seen.entries()].flatMap(([d, cn]) => [cn, d]).filter(Boolean);
    },
    async countMembers(group) {
      const dn = await groupDn(group);
      if (!dn) return 0;
      if (ad) {
        const found = await search(
          config.baseDn,
          `(&${config.userFilter}${enabledOnly}(memberOf:${inChain}:=${escapeFilterValue(dn)}))`,
          [idAttr],
        );
        return found.length;
      }
      const everyone = await this.everyone();
      let n = 0;
      for (const p of everyone.values()) {
        const groups = (await this.groupsOf(p.dn)).map((g) => g.toLowerCase());
        if (groups.includes(dn.toLowerCase())) n++;
      }
      return n;
    },
    async close() {
      await client.unbind().catch(() => {});
    },
  };
}

/** The filter Active Directory answers with every group a DN is in, nested included. */
export function nestedGroupsFilter(dn: string): string {
  return `(member:${inChain}:=${escapeFilterValue(dn)})`;
}
