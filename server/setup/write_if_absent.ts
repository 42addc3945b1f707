/** Writes a new file with `mode` (default 0600), never replacing one that exists. */
export async function writeIfAbsent(
  path: string,
  content: () => string,
  mode = 0o600,
): Promise<boolean> {
  try {
    const file = await Deno.open(path, { createNew: true, write: true, mode });
    try {
      await file.write(new TextEncoder().encode(content()));
    } finally {
      file.close();
    }
    // The umask may have narrowed the mode; secrets must be exactly 0600 either way.
    await Deno.chmod(path, mode);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.AlreadyExists) return false;
    throw e;
  }
}
