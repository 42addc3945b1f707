/**
 * A throwaway Active Directory for tests: Debian's Samba provisioned as a domain controller
 * (`samba-tool domain provision`) in a temp dir, only its LDAP service started, bound to loopback,
 * with LDAPS and StartTLS on a certificate from a test CA (a Samba DC's own self-made one is what
 * real deployments must replace, and llmgw refuses it). People and groups are added with
 * samba-tool before it starts. Samba's LDAP ports are fixed (389, 636): where they are taken, or
 * Samba or root is missing, `sambaMissing` says why and the tests are ignored.
 */
import { ensureClusterTls, tlsPaths } from "../../server/tls/cluster_tls.ts";
import { portTaken, preparedDir, present, run, startServer } from "./throwaway_server.ts";

export const realm = "corp.example";
export const domainDn = "DC=corp,DC=example";
export const usersDn = `CN=Users,${domainDn}`;
export const adminPassword = "Admin-Pass-123!";

function why(): string | undefined {
  if (!present("/usr/sbin/samba") || !present("/usr/bin/samba-tool")) {
    return "Samba not found (apt-get install samba samba-ad-dc)";
  }
  if (!present("/usr/bin/ldapmodify")) return "ldapmodify not found (apt-get install ldap-utils)";
  if (Deno.uid() !== 0) return "a Samba DC runs as root";
  if (portTaken(389) || portTaken(636)) return "ports 389/636 are taken on 127.0.0.1";
  return undefined;
}

/** Why the Active Directory tests cannot run here, or undefined when they can. */
export const sambaMissing: string | undefined = why();

export interface AdPerson {
  name: string;
  password: string;
  mail?: string;
  disabled?: boolean;
}

export interface AdGroup {
  name: string;
  /** sAMAccountNames of people or of other groups (nesting). */
  members: string[];
}

export interface SambaDc {
  ldapsUrl: string;
  ldapUrl: string;
  caPem: string;
  /** A change in LDIF, made as the domain's Administrator over LDAPS. */
  modify(ldif: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startSambaDc(
  tree: { people: AdPerson[]; groups: AdGroup[] },
): Promise<SambaDc> {
  const dir = await preparedDir("llmgw-samba-", (dir) => provision(dir, tree));
  const server = await startServer({
    name: "samba",
    argv: ["samba", "-i", "-M", "single", "--no-process-group", "-s", `${dir}/etc/smb.conf`],
    dir,
    port: 636,
    waitMs: 60_000,
    pollMs: 200,
  });
  const caPem = await Deno.readTextFile(tlsPaths(dir).caCert);
  return {
    ldapsUrl: "ldaps://127.0.0.1:636",
    ldapUrl: "ldap://127.0.0.1:389",
    caPem,
    async modify(ldif) {
      await run(
        [
          "ldapmodify",
          "-x",
          "-H",
          "ldaps://127.0.0.1:636",
          "-D",
          `Administrator@${realm}`,
          "-w",
          adminPassword,
        ],
        { env: { LDAPTLS_CACERT: tlsPaths(dir).caCert }, input: ldif },
      );
    },
    stop: server.stop,
  };
}

/** A domain provisioned in `dir`, its TLS on the test CA, its people and groups added. */
async function provision(dir: string, tree: { people: AdPerson[]; groups: AdGroup[] }) {
  const conf = `${dir}/etc/smb.conf`;
  const offline = ["-s", conf, "-H", `${dir}/private/sam.ldb`];
  await run([
    "samba-tool",
    "domain",
    "provision",
    `--targetdir=${dir}`,
    `--realm=${realm.toUpperCase()}`,
    "--domain=CORP",
    "--server-role=dc",
    "--dns-backend=NONE",
    `--adminpass=${adminPassword}`,
    "--option=interfaces=lo",
    "--option=bind interfaces only=yes",
    "--option=server services=ldap",
    "--option=netbios name=LLMGWDC",
  ]);
  await ensureClusterTls(dir, ["127.0.0.1", "localhost"]);
  const tls = tlsPaths(dir);
  const text = await Deno.readTextFile(conf);
  await Deno.writeTextFile(
    conf,
    text.replace(
      "[global]",
      `[global]\n\ttls enabled = yes\n\ttls keyfile = ${tls.key}\n\ttls certfile = ${tls.cert}\n\ttls cafile = ${tls.caCert}`,
    ).replace(/log file = .*/, `log file = ${dir}/log.%m`),
  );
  for (const p of tree.people) {
    await run([
      "samba-tool",
      "user",
      "create",
      p.name,
      p.password,
      ...(p.mail ? [`--mail-address=${p.mail}`] : []),
      ...offline,
    ]);
    if (p.disabled) await run(["samba-tool", "user", "disable", p.name, ...offline]);
  }
  for (const g of tree.groups) await run(["samba-tool", "group", "add", g.name, ...offline]);
  for (const g of tree.groups) {
    if (g.members.length) {
      await run(["samba-tool", "group", "addmembers", g.name, g.members.join(","), ...offline]);
    }
  }
}
