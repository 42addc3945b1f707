/**
 * A throwaway OpenLDAP directory for tests: Debian's `slapd` on a random loopback port, its
 * cn=config generated here (slapadd -n0) in a temp dir, StartTLS with a test CA made by the
 * project's own CA code, and a tree of people and groups loaded with slapadd. Where slapd is
 * absent, `slapdMissing` says so and the tests that need it are ignored.
 */
import { ensureClusterTls, tlsPaths } from "../../server/tls/cluster_tls.ts";
import { freePort, preparedDir, present, run, startServer } from "./throwaway_server.ts";

const slapdBin = "/usr/sbin/slapd";
const slapaddBin = "/usr/sbin/slapadd";

/** Why the directory tests cannot run here, or undefined when they can. */
export const slapdMissing: string | undefined = [
    slapdBin,
    slapaddBin,
    "/usr/bin/ldapmodify",
    "/usr/bin/openssl",
    "/etc/ldap/schema/inetorgperson.ldif",
  ].every(present)
  ? undefined
  : "OpenLDAP's slapd, ldap-utils or openssl not found (apt-get install slapd ldap-utils openssl)";

export const baseDn = "dc=example,dc=test";
export const adminDn = `cn=admin,${baseDn}`;
export const adminPassword = "admin-secret-Zq7";
export const serviceDn = `cn=gateway,ou=services,${baseDn}`;
export const servicePassword = "service-secret-Xk2";

export interface DirectoryPerson {
  uid: string;
  password: string;
  mail?: string;
  cn?: string;
  employeeType?: string;
}

export interface DirectoryGroup {
  cn: string;
  /** uids of people, or `group:CN` for a nested group. */
  members: string[];
}

export interface Slapd {
  port: number;
  url: string;
  /** The test CA's certificate (PEM), for `auth.ldap.ca`. */
  caPem: string;
  dir: string;
  /** Changes the tree with ldapmodify as the directory's administrator (LDIF). */
  modify(ldif: string): Promise<void>;
  /** The DN of a person by uid. */
  personDn(uid: string): string;
  stop(): Promise<void>;
}

async function sha512Crypt(password: string): Promise<string> {
  // slapd accepts {CRYPT} through libc; SHA-512 crypt ("$6$") is what Debian's libc offers.
  return `{CRYPT}${(await run(["openssl", "passwd", "-6", "-stdin"], { input: password })).trim()}`;
}

function configLdif(dir: string): string {
  const tls = tlsPaths(dir);
  // Each of Debian's schema files is a cn=config entry of its own, under cn=schema.
  const schemas = ["core", "cosine", "nis", "inetorgperson"].map((s) =>
    Deno.readTextFileSync(`/etc/ldap/schema/${s}.ldif`)
  );
  return [
    `dn: cn=config
objectClass: olcGlobal
cn: config
olcPidFile: ${dir}/slapd.pid
olcTLSCACertificateFile: ${tls.caCert}
olcTLSCertificateFile: ${tls.cert}
olcTLSCertificateKeyFile: ${tls.key}
`,
    `dn: cn=module{0},cn=config
objectClass: olcModuleList
cn: module{0}
olcModulePath: /usr/lib/ldap
olcModuleLoad: back_mdb
`,
    `dn: cn=schema,cn=config
objectClass: olcSchemaConfig
cn: schema
`,
    ...schemas,
    `dn: olcDatabase={-1}frontend,cn=config
objectClass: olcDatabaseConfig
objectClass: olcFrontendConfig
olcDatabase: {-1}frontend
olcAccess: {0}to * by * read
`,
    `dn: olcDatabase={0}config,cn=config
objectClass: olcDatabaseConfig
olcDatabase: {0}config
olcAccess: {0}to * by * none
`,
    `dn: olcDatabase={1}mdb,cn=config
objectClass: olcDatabaseConfig
objectClass: olcMdbConfig
olcDatabase: {1}mdb
olcSuffix: ${baseDn}
olcDbDirectory: ${dir}/data
olcRootDN: ${adminDn}
olcRootPW: ${adminPassword}
olcDbMaxSize: 67108864
olcAccess: {0}to attrs=userPassword by self write by anonymous auth by * none
olcAccess: {1}to * by dn.exact="${serviceDn}" read by self read by anonymous auth by * none
`,
  ].join("\n");
}

async function treeLdif(people: DirectoryPerson[], groups: DirectoryGroup[]): Promise<string> {
  const entries = [
    `dn: ${baseDn}\nobjectClass: dcObject\nobjectClass: organization\ndc: example\no: Example\n`,
    `dn: ou=people,${baseDn}\nobjectClass: organizationalUnit\nou: people\n`,
    `dn: ou=groups,${baseDn}\nobjectClass: organizationalUnit\nou: groups\n`,
    `dn: ou=services,${baseDn}\nobjectClass: organizationalUnit\nou: services\n`,
    `dn: ${serviceDn}\nobjectClass: person\nobjectClass: simpleSecurityObject\ncn: gateway\nsn: gateway\nuserPassword: ${await sha512Crypt(
      servicePassword,
    )}\n`,
  ];
  for (const p of people) entries.push(await personLdif(p));
  for (const g of groups) entries.push(groupLdif(g));
  return entries.join("\n");
}

/** One person's entry, as slapadd or ldapadd reads it. */
export async function personLdif(p: DirectoryPerson): Promise<string> {
  return [
    `dn: uid=${p.uid},ou=people,${baseDn}`,
    "objectClass: inetOrgPerson",
    `uid: ${p.uid}`,
    `cn: ${p.cn ?? p.uid}`,
    `sn: ${p.uid}`,
    ...(p.mail ? [`mail: ${p.mail}`] : []),
    ...(p.employeeType ? [`employeeType: ${p.employeeType}`] : []),
    `userPassword: ${await sha512Crypt(p.password)}`,
    "",
  ].join("\n");
}

function memberDn(m: string): string {
  return m.startsWith("group:")
    ? `cn=${m.slice(6)},ou=groups,${baseDn}`
    : `uid=${m},ou=people,${baseDn}`;
}

function groupLdif(g: DirectoryGroup): string {
  return [
    `dn: cn=${g.cn},ou=groups,${baseDn}`,
    "objectClass: groupOfNames",
    `cn: ${g.cn}`,
    // groupOfNames needs one member at least: an empty group names itself' holder, the OU.
    ...(g.members.length ? g.members.map((m) => `member: ${memberDn(m)}`) : [
      `member: ou=groups,${baseDn}`,
    ]),
    "",
  ].join("\n");
}

export async function startSlapd(
  tree: { people: DirectoryPerson[]; groups: DirectoryGroup[] },
): Promise<Slapd> {
  const dir = await preparedDir("llmgw-slapd-", async (dir) => {
    await ensureClusterTls(dir, ["127.0.0.1", "localhost"]);
    await Deno.mkdir(`${dir}/config`);
    await Deno.mkdir(`${dir}/data`);
    await run([slapaddBin, "-n0", "-F", `${dir}/config`], { input: configLdif(dir) });
    await run([slapaddBin, "-n1", "-F", `${dir}/config`], {
      input: await treeLdif(tree.people, tree.groups),
    });
  });
  const port = freePort();
  const url = `ldap://127.0.0.1:${port}`;
  const server = await startServer({
    name: "slapd",
    // -d 0: stay in the foreground (so the test owns the process) and log nothing.
    argv: [slapdBin, "-d", "0", "-F", `${dir}/config`, "-h", `${url}/`],
    dir,
    port,
    waitMs: 15_000,
    pollMs: 50,
  });
  const caPem = await Deno.readTextFile(tlsPaths(dir).caCert);
  return {
    port,
    url,
    caPem,
    dir,
    personDn: (uid) => `uid=${uid},ou=people,${baseDn}`,
    async modify(ldif) {
      await run(["ldapmodify", "-x", "-H", url, "-D", adminDn, "-w", adminPassword], {
        input: ldif,
      });
    },
    stop: server.stop,
  };
}
