/**
 * A node's certificate in the cluster, signed by the cluster CA and named `llmgw node NAME`:
 * sent with every welcome, so a replica set's head and workers can prove who they are to each
 * other over the tunnel (agent/tunnel). Made fresh per connection and never written anywhere:
 * the agent holds it in memory, and a node removed from the cluster gets no new one.
 */
import { nodeCommonName } from "../../core/protocol/node_common_name.ts";
import { importKey, keyToPem, randomSerial, tlsPaths } from "./cluster_tls.ts";
import { x509 } from "./x509.ts";

const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const day = 86_400_000;
/** Long enough to outlast any connection; a reconnect brings a new one. */
const lifetimeMs = 30 * day;

export interface NodeCertificate {
  certPem: string;
  keyPem: string;
}

/** Signs certificates for nodes with the CA in `dataDir`/tls (read once, on first use). */
export function nodeCertificates(dataDir: string): (node: string) => Promise<NodeCertificate> {
  let ca: Promise<{ cert: x509.X509Certificate; key: CryptoKey }> | undefined;
  const load = async () => {
    const p = tlsPaths(dataDir);
    return {
      cert: new x509.X509Certificate(await Deno.readTextFile(p.caCert)),
      key: await importKey(await Deno.readTextFile(p.caKey)),
    };
  };
  return async (node) => {
    ca ??= load();
    const { cert: caCert, key: caKey } = await ca;
    const keys = await crypto.subtle.generateKey(alg, true, ["sign", "verify"]);
    const now = Date.now();
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: randomSerial(),
      subject: `CN=${nodeCommonName(node)}`,
      issuer: caCert.subject,
      notBefore: new Date(now - day),
      notAfter: new Date(now + lifetimeMs),
      signingKey: caKey,
      publicKey: keys.publicKey,
      signingAlgorithm: alg,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        // A head is a client of its workers; a worker serves its head.
        new x509.ExtendedKeyUsageExtension([
          x509.ExtendedKeyUsage.serverAuth,
          x509.ExtendedKeyUsage.clientAuth,
        ]),
        await x509.AuthorityKeyIdentifierExtension.create(caCert),
      ],
    });
    return { certPem: cert.toString("pem") + "\n", keyPem: await keyToPem(keys.privateKey) };
  };
}
