/**
 * The appliance's ready-to-use API key. `up` makes it on the first run and keeps it in the data
 * directory (mode 0600, like the admin token) so every later `up` can say where it is; the store
 * holds only its hash, as for every key. It belongs to the appliance's administrator, so their
 * "My keys" and usage show it (a key of no one is in nobody's own view).
 */
import type { KeyService } from "../keys/keys.ts";
import { writeIfAbsent } from "./write_if_absent.ts";

export async function ensureLocalKey(
  dataDir: string,
  keys: KeyService,
  ownerId: string | null = null,
): Promise<{ key: string; path: string; created: boolean }> {
  const path = `${dataDir}/local.key`;
  try {
    const key = (await Deno.readTextFile(path)).trim();
    const check = await keys.check(key);
    if (check.ok) return { key, path, created: false };
    // Revoked or expired: make a new one rather than print a key that will be refused.
    await Deno.remove(path);
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  const { key } = await keys.create({ name: "local (llmgw up)", userId: ownerId });
  await writeIfAbsent(path, () => key + "\n");
  return { key, path, created: true };
}
