/**
 * Sealing secrets the store must keep (a person's OAuth tokens): AES-256-GCM under a key derived
 * from the cluster secret with HKDF, one key per purpose, so a store or a backup without the data
 * directory's `cluster.secret` holds nothing usable, and a sealed value of one purpose does not
 * open as another's. Sealed text is `v1.<iv>.<ciphertext>`, base64url, safe in a URL.
 */
const version = "v1";

export class Sealer {
  #key: Promise<CryptoKey> | undefined;

  /** `secret` is read when first needed: a cluster that never seals never needs it. */
  constructor(private readonly secret: () => Promise<string>, private readonly purpose: string) {}

  /** The cluster secret from the data directory, as `llmgw init` wrote it. */
  static fromDataDir(dataDir: string, purpose: string): Sealer {
    return new Sealer(async () => {
      const text = await Deno.readTextFile(`${dataDir}/cluster.secret`).catch(() => {
        throw new Error("the cluster secret cannot be read");
      });
      return text.trim();
    }, purpose);
  }

  async seal(plain: string): Promise<string> {
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const data = await crypto.subtle.encrypt(
      { name: "AES-GCM", iv },
      await this.#cryptoKey(),
      new TextEncoder().encode(plain),
    );
    return `${version}.${b64(iv)}.${b64(new Uint8Array(data))}`;
  }

  /** The plain text, or null for text this key did not seal (another cluster's, or altered). */
  async unseal(sealed: string): Promise<string | null> {
    const [v, iv, data, ...rest] = sealed.split(".");
    if (v !== version || !iv || !data || rest.length > 0) return null;
    try {
      const plain = await crypto.subtle.decrypt(
        { name: "AES-GCM", iv: unb64(iv) },
        await this.#cryptoKey(),
        unb64(data),
      );
      return new TextDecoder().decode(plain);
    } catch {
      return null;
    }
  }

  #cryptoKey(): Promise<CryptoKey> {
    this.#key ??= (async () => {
      const secret = await this.secret();
      const base = await crypto.subtle.importKey(
        "raw",
        new TextEncoder().encode(secret),
        "HKDF",
        false,
        ["deriveKey"],
      );
      return await crypto.subtle.deriveKey(
        {
          name: "HKDF",
          hash: "SHA-256",
          salt: new TextEncoder().encode("llmgw seal"),
          info: new TextEncoder().encode(this.purpose),
        },
        base,
        { name: "AES-GCM", length: 256 },
        false,
        ["encrypt", "decrypt"],
      );
    })();
    // A secret that could not be read is tried again next time, not remembered as a failure.
    this.#key.catch(() => (this.#key = undefined));
    return this.#key;
  }
}

function b64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function unb64(text: string): Uint8Array<ArrayBuffer> {
  const s = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}
