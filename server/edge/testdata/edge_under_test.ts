/** The client listener on a loopback port with the given flags, for the edge's own tests. */
import { createLogger } from "../../../core/log.ts";
import { loadServerConfig } from "../../wiring/config.ts";
import { type ClientListener, startClientListener } from "../../wiring/client_listener.ts";

export type Handler = (
  req: Request,
  env: { remoteAddr: Deno.NetAddr; clientGone: AbortSignal },
) => Response | Promise<Response>;

export async function listen(flags: Record<string, string>, handler: Handler) {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-edge-" });
  const config = await loadServerConfig({
    flags: { data: dir, listen: "127.0.0.1:0", ...flags },
    env: {},
  });
  const listener: ClientListener = await startClientListener(
    config,
    handler,
    createLogger({ sink: () => {} }),
    undefined,
  );
  const port = Number(new URL(listener.url).port);
  return {
    port,
    async [Symbol.asyncDispose]() {
      await listener.drain(1_000);
      await Deno.remove(dir, { recursive: true });
    },
  };
}
