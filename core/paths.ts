/** Where things live by default, which differs between a checkout and an installed binary. */
import { isCompiled } from "./self_command.ts";

/** `./data` from a checkout, `/var/lib/llmgw` for an installed binary. */
export function defaultDataDir(): string {
  return isCompiled() ? "/var/lib/llmgw" : "./data";
}
