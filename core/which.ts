/** Finds an executable: a path as given, or a name on PATH. Undefined when there is none. */
export async function which(
  name: string,
  path = Deno.env.get("PATH") ?? "",
): Promise<string | undefined> {
  const candidates = name.includes("/")
    ? [name]
    : path.split(":").filter(Boolean).map((d) => `${d}/${name}`);
  for (const c of candidates) {
    try {
      const st = await Deno.stat(c);
      if (st.isFile && st.mode !== null && (st.mode & 0o111) !== 0) return c;
    } catch {
      // not here; try the next directory
    }
  }
  return undefined;
}
