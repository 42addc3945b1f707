/**
 * The cluster's own certificate authority and the control plane's certificate, kept in
 * DATA/tls/. Nodes trust this CA and no other (the join code carries its fingerprint), so a
 * node's credential only ever goes to a control plane of its own cluster. ECDSA P-256 through
 * WebCrypto. Creating is idempotent: files that exist are left exactly as they are.
 */
import { exists } from "../../core/exists.ts";
import { x509 } from "./x509.ts";

const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const day = 86_400_000;

export interface ClusterTls {
  /** The CA certificate, which nodes are given. */
  caPem: string;
  /** sha256 of the CA certificate's DER, lowercase hex. */
  caFingerprint: string;
  /** The control plane's certificate followed by the CA's (the chain a TLS listener sends). */
  certChainPem: string;
  keyPem: string;
}

export interface TlsPaths {
  dir: string;
  caCert: string;
  caKey: string;
  cert: string;
  key: string;
}

export function tlsPaths(dataDir: string): TlsPaths {
  const dir = `${dataDir}/tls`;
  return {
    dir,
    caCert: `${dir}/ca.pem`,
    caKey: `${dir}/ca.key`,
    cert: `${dir}/server.pem`,
    key: `${dir}/server.key`,
  };
}

/** The names and addresses the certificate is made for when none are configured. */
/** The names the cluster certificate is made for: `tls.names` (comma-separated), else this host's. */
export function tlsNames(setting: string): string[] {
  const names = setting.split(",").map((s) => s.trim()).filter(Boolean);
  return names.length > 0 ? names : defaultSans();
}

export function defaultSans(): string[] {
  const names = ["localhost", "127.0.0.1", "::1"];
  try {
    const h = Deno.hostname();
    if (h && !names.includes(h)) names.push(h);
  } catch {
    // No hostname to add: loopback still works.
  }
  return names;
}

/**
 * Creates whatever of the CA and the server certificate is missing; returns the names of the
 * files it created. A server certificate is made only together with a CA key to sign it.
 */
export async function ensureClusterTls(dataDir: string, sans: string[]): Promise<string[]> {
  const p = tlsPaths(dataDir);
  await Deno.mkdir(p.dir, { recursive: true, mode: 0o700 });
  const created: string[] = [];
  if (!(await exists(p.caCert))) {
    const keys = await crypto.subtle.generateKey(alg, true, ["sign", "verify"]);
    const now = Date.now();
    const ca = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: randomSerial(),
      name: `CN=llmgw cluster CA ${crypto.randomUUID().slice(0, 8)}`,
      notBefore: new Date(now - day),
      notAfter: new Date(now + 20 * 365 * day),
      keys,
      signingAlgorithm: alg,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
          true,
        ),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ],
    });
    await writeSecret(p.caKey, await keyToPem(keys.privateKey));
    await Deno.writeTextFile(p.caCert, ca.toString("pem") + "\n", { mode: 0o644 });
    created.push("tls/ca.pem", "tls/ca.key");
  }
  if (!(await exists(p.cert))) {
    const ca = new x509.X509Certificate(await Deno.readTextFile(p.caCert));
    const caKey = await importKey(await Deno.readTextFile(p.caKey));
    const keys = await crypto.subtle.generateKey(alg, true, ["sign", "verify"]);
    const now = Date.now();
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: randomSerial(),
      subject: "CN=llmgw control plane",
      issuer: ca.subject,
      notBefore: new Date(now - day),
      notAfter: new Date(now + 5 * 365 * day),
      signingKey: caKey,
      publicKey: keys.publicKey,
      signingAlgorithm: alg,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension(
          sans.map((s): x509.JsonGeneralName => ({ type: isAddress(s) ? "ip" : "dns", value: s })),
        ),
        await x509.AuthorityKeyIdentifierExtension.create(ca),
      ],
    });
    await writeSecret(p.key, await keyToPem(keys.privateKey));
    await Deno.writeTextFile(p.cert, cert.toString("pem") + "\n", { mode: 0o644 });
    created.push("tls/server.pem", "tls/server.key");
  }
  return created;
}

export async function loadClusterTls(dataDir: string): Promise<ClusterTls> {
  const p = tlsPaths(dataDir);
  const caPem = (await Deno.readTextFile(p.caCert)).trim() + "\n";
  const cert = (await Deno.readTextFile(p.cert)).trim() + "\n";
  return {
    caPem,
    caFingerprint: await fingerprintPem(caPem),
    certChainPem: cert + caPem,
    keyPem: await Deno.readTextFile(p.key),
  };
}

/** sha256 of a certificate's DER, lowercase hex. */
export async function fingerprintPem(pem: string): Promise<string> {
  return await fingerprintDer(new x509.X509Certificate(pem).rawData);
}

export async function fingerprintDer(der: ArrayBuffer | Uint8Array): Promise<string> {
  const bytes = der instanceof Uint8Array ? der : new Uint8Array(der);
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

export async function keyToPem(key: CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await crypto.subtle.exportKey("pkcs8", key), "PRIVATE KEY") +
    "\n";
}

export async function importKey(pem: string): Promise<CryptoKey> {
  const der = x509.PemConverter.decodeFirst(pem);
  return await crypto.subtle.importKey("pkcs8", der, alg, false, ["sign"]);
}

export function randomSerial(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[0]! &= 0x7f; // a positive integer, as RFC 5280 asks
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

function isAddress(s: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(s) || s.includes(":");
}

async function writeSecret(path: string, text: string): Promise<void> {
  await Deno.writeTextFile(path, text, { mode: 0o600 });
  await Deno.chmod(path, 0o600);
}
