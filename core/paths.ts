/** Where things live by default, which differs between a checkout and an installed binary. */

/**
 * A `deno compile`d binary runs as itself rather than as `deno`, so the executable's name tells
 * the two apart without any build-time flag.
 */
export function isCompiled(): boolean {
  const exe = Deno.execPath().split("/").at(-1) ?? "";
  return exe !== "deno" && exe !== "deno.exe";
}

/** `./data` from a checkout, `/var/lib/llmgw` for an installed binary. */
export function defaultDataDir(): string {
  return isCompiled() ? "/var/lib/llmgw" : "./data";
}
