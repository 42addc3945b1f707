/**
 * A throwaway Active Directory for tests: Debian's Samba provisioned as a domain controller
 * (`samba-tool domain provision`) in a temp dir, only its LDAP service started, bound to loopback,
 * with LDAPS and StartTLS on a certificate from a test CA (a Samba DC's own self-made one is what
 * real deployments must replace, and llmgw refuses it). People and groups are added with
 * samba-tool before it starts. Samba's LDAP ports are fixed (389, 636): where they are taken, or
 * Samba or root is missing, `sambaMissing` says why and the tests are ignored.
 */
import { ensureClusterTls, tlsPaths } from "../../server/tls/cluster_tls.ts";

export const realm = "corp.example";
export const domainDn = "DC=corp,DC=example";
export const usersDn = `CN=Users,${domainDn}`;
export const adminPassword = "Admin-Pass-123!";

function present(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

function portTaken(port: number): boolean {
  try {
    Deno.listen({ hostname: "127.0.0.1", port }).close();
    return false;
  } catch {
    return true;
  }
}

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

async function run(args: string[], env: Record<string, string> = {}, input?: string) {
  const child = new Deno.Command(args[0]!, {
    args: args.slice(1),
    env,
    stdin: input === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (input !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(input));
    await w.close();
  }
  const out = await child.output();
  if (!out.success) {
    const text = new TextDecoder().decode(out.stderr) + new TextDecoder().decode(out.stdout);
    throw new Error(`${args.slice(0, 3).join(" ")} failed: ${text.slice(-1500)}`);
  }
}

async function waitForPort(port: number, child: Deno.ChildProcess): Promise<void> {
  let exited = false;
  child.status.then(() => exited = true);
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && !exited) {
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`samba did not listen on ${port}${exited ? " (it exited)" : ""}`);
}

export async function startSambaDc(
  tree: { people: AdPerson[]; groups: AdGroup[] },
): Promise<SambaDc> {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-samba-" });
  const conf = `${dir}/etc/smb.conf`;
  const offline = ["-s", conf, "-H", `${dir}/private/sam.ldb`];
  try {
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
  } catch (e) {
    await Deno.remove(dir, { recursive: true });
    throw e;
  }
  const child = new Deno.Command("samba", {
    args: ["-i", "-M", "single", "--no-process-group", "-s", conf],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    await waitForPort(636, child);
  } catch (e) {
    child.kill("SIGTERM");
    await child.status;
    await Deno.remove(dir, { recursive: true });
    throw e;
  }
  const caPem = await Deno.readTextFile(tlsPaths(dir).caCert);
  let stopped = false;
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
        { LDAPTLS_CACERT: tlsPaths(dir).caCert },
        ldif,
      );
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      await child.status;
      await Deno.remove(dir, { recursive: true });
    },
  };
}
