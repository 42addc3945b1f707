/**
 * The shared test fixtures (real GGUF files): LLMGW_FIXTURES names their folder, else
 * `../shared/fixtures/` beside the repository. `fixture(name)` returns a path, or undefined with a
 * clear SKIPPED line when the file is absent, so a test that needs it can return early.
 */
export function fixturesDir(): string {
  const env = Deno.env.get("LLMGW_FIXTURES");
  if (env) return env.endsWith("/") ? env : env + "/";
  return new URL("../../../shared/fixtures/", import.meta.url).pathname;
}

export function fixture(name: string): string | undefined {
  const path = fixturesDir() + name;
  try {
    Deno.statSync(path);
    return path;
  } catch {
    console.warn(`SKIPPED: fixture ${path} is absent (set LLMGW_FIXTURES to its folder)`);
    return undefined;
  }
}
