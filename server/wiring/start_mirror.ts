/**
 * Builds the control plane's mirror from the resolved config: the hub client (the token read
 * once from its file, never logged), a fetcher rooted at the mirror directory, the service.
 */
import type { Clock } from "../../core/clock.ts";
import type { Logger } from "../../core/log.ts";
import type { Store } from "../../db/store.ts";
import { WeightsFetcher } from "../../core/weights/fetcher.ts";
import type { ServerConfig } from "./config.ts";
import { HfClient } from "../weights/hf_client.ts";
import { MirrorService } from "../weights/mirror.ts";

export async function readHubToken(file: string): Promise<string | undefined> {
  if (!file) return undefined;
  try {
    return (await Deno.readTextFile(file)).trim() || undefined;
  } catch (e) {
    throw new Error(`weights.hf_token_file: cannot read ${file}: ${(e as Error).name}`);
  }
}

export async function startMirror(
  config: Pick<ServerConfig, "dataDir" | "hfEndpoint" | "hfTokenFile" | "mirrorDir">,
  deps: {
    store: Store;
    clock: Clock;
    logger: Logger;
    fetch?: typeof fetch;
    /** Free bytes of the mirror's filesystem; tests give a small disk. */
    freeBytes?: (dir: string) => Promise<number | null>;
  },
): Promise<MirrorService> {
  const token = await readHubToken(config.hfTokenFile);
  const endpoint = config.hfEndpoint.replace(/\/+$/, "");
  const mirrorDir = config.mirrorDir || `${config.dataDir}/mirror`;
  const doFetch = deps.fetch ?? fetch;
  const logger = deps.logger.child({ part: "mirror" });
  const hub = endpoint
    ? new HfClient({ endpoint, fetch: doFetch, ...(token ? { token } : {}) })
    : null;
  const fetcher = new WeightsFetcher({
    fetch: doFetch,
    clock: deps.clock,
    logger,
    weightsDir: mirrorDir,
    ...(deps.freeBytes ? { freeBytes: deps.freeBytes } : {}),
    ...(endpoint ? { hub: { endpoint, ...(token ? { token } : {}) } } : {}),
  });
  return new MirrorService({
    store: deps.store,
    clock: deps.clock,
    logger,
    fetcher,
    mirrorDir,
    hub,
  });
}
