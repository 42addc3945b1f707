/** Where a node keeps what joining gave it. */
export const credentialPath = (dataDir: string) => `${dataDir}/node.credential`;
export const caPath = (dataDir: string) => `${dataDir}/ca.pem`;

/** The credential and CA, or a sentence saying the node has not joined. */
export async function readNodeFiles(
  dataDir: string,
): Promise<{ credential: string; caPem: string }> {
  try {
    const credential = (await Deno.readTextFile(credentialPath(dataDir))).trim();
    const caPem = await Deno.readTextFile(caPath(dataDir));
    if (!credential) throw new Deno.errors.NotFound();
    return { credential, caPem };
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      throw new TypeError(
        `${dataDir} holds no node credential: join first with 'llmgw join <code> --data ${dataDir}'`,
      );
    }
    throw e;
  }
}
