/**
 * Getting the cluster CA for a node that has only a join code: the code carries the CA's sha256,
 * not the CA. The control plane's TLS listener sends its chain, CA included, in the handshake, so
 * the node reads the chain without trusting it yet, keeps the certificate whose fingerprint is the
 * code's, and from then on trusts that CA only (the join itself is a fully verified request). No
 * secret is sent on the unverified connection: it is closed right after the handshake.
 */
import tls from "node:tls";
import { Buffer } from "node:buffer";

export async function fetchClusterCa(
  url: URL,
  fingerprint: string,
  timeoutMs = 10_000,
): Promise<string> {
  if (url.protocol !== "https:") throw new TypeError(`${url.origin} is not an https URL`);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const port = Number(url.port || 443);
  const chain = await new Promise<Buffer[]>((resolve, reject) => {
    const socket = tls.connect({
      host,
      port,
      servername: /^[\d.:]+$/.test(host) ? undefined : host,
      rejectUnauthorized: false,
    }, () => {
      const out: Buffer[] = [];
      let cert = socket.getPeerCertificate(true) as tls.DetailedPeerCertificate | undefined;
      for (let i = 0; cert?.raw && i < 8; i++) {
        out.push(cert.raw);
        if (cert.issuerCertificate === cert) break;
        cert = cert.issuerCertificate;
      }
      socket.end();
      resolve(out);
    });
    socket.setTimeout(timeoutMs, () => {
      socket.destroy();
      reject(new Error(`no TLS answer from ${url.host} in ${timeoutMs} ms`));
    });
    socket.on("error", (e: Error) => reject(new Error(`cannot reach ${url.host}: ${e.message}`)));
  });
  for (const der of chain) {
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new Uint8Array(der)));
    const hex = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
    if (hex === fingerprint) return toPem(der);
  }
  throw new Error(
    `${url.host} did not present this cluster's CA (fingerprint ${fingerprint.slice(0, 16)}…): ` +
      `it is another server, or a machine in between; nothing was sent`,
  );
}

function toPem(der: Uint8Array): string {
  const b64 = Buffer.from(der).toString("base64").match(/.{1,64}/g)!.join("\n");
  return `-----BEGIN CERTIFICATE-----\n${b64}\n-----END CERTIFICATE-----\n`;
}
