/**
 * The first administrator's one-time password, kept in a 0600 file in the data directory until
 * that administrator first signs in (as Jenkins and Grafana do): a first run that fails after
 * init, or a terminal that scrolled away, does not lose it. Only init writes it; the first
 * sign-in deletes it.
 */

/** The first administrator, made by init; their first password is kept until they sign in. */
export const adminUsername = "admin";

export const firstPasswordPath = (dataDir: string) => `${dataDir}/initial-admin-password`;

/** Replaces any file left by an init that failed before the administrator was stored. */
export async function keepFirstPassword(dataDir: string, password: string): Promise<string> {
  const path = firstPasswordPath(dataDir);
  await Deno.writeTextFile(path, password + "\n", { mode: 0o600 });
  // The umask may have narrowed the mode; a secret's must be exactly 0600 either way.
  await Deno.chmod(path, 0o600);
  return path;
}

/** After the first sign-in the password is its owner's alone. */
export async function forgetFirstPassword(path: string): Promise<void> {
  await Deno.remove(path).catch((e) => {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  });
}
