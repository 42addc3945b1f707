/**
 * The shared test fixtures (real GGUF files): LLMGW_FIXTURES names their folder, else
 * `../shared/fixtures/` beside the repository. `fixture(name)` returns a path, or undefined when the
 * file is absent; `fixtureAbsent(name)` says why, for a test's `ignore` and name (see skip.ts).
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
    return undefined;
  }
}

/** Why a test that needs fixture `name` cannot run here, or undefined when it can. */
export function fixtureAbsent(name: string): string | undefined {
  return fixture(name) ? undefined : `fixture ${name} not found; set LLMGW_FIXTURES`;
}
