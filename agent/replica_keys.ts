/**
 * Each running engine's API key, one 0600 file per replica under a 0700 directory, so that a
 * restarted agent can tell whether an engine it finds running holds the key it is asked to serve
 * with, and its owner can read the key of an engine it adopted.
 *
 * Why files and not HMAC(node secret, replica id): the key is issued by the control plane, which
 * hands the same key to the router; the agent cannot derive it. And a derived key would change
 * under every running engine the day the node secret is rotated. The registry (replicas.json) stays
 * free of secrets, so it can be read and copied for diagnosis.
 */
export class ReplicaKeys {
  constructor(readonly dir: string) {}

  #path(replicaId: string): string {
    return `${this.dir}/${replicaId}.key`;
  }

  /** Written to a temporary file created 0600, then renamed: never readable by others. */
  write(replicaId: string, key: string): void {
    Deno.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const tmp = `${this.#path(replicaId)}.${Deno.pid}.tmp`;
    Deno.writeTextFileSync(tmp, key, { mode: 0o600 });
    Deno.chmodSync(tmp, 0o600);
    Deno.renameSync(tmp, this.#path(replicaId));
  }

  read(replicaId: string): string | undefined {
    try {
      return Deno.readTextFileSync(this.#path(replicaId));
    } catch {
      return undefined;
    }
  }

  remove(replicaId: string): void {
    try {
      Deno.removeSync(this.#path(replicaId));
    } catch {
      // already gone
    }
  }
}
