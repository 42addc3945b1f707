/**
 * What the cluster's TLS listener serves: the join exchange, the control channel and the
 * mirror's files for nodes. Nothing here is reachable over plain HTTP, so a join secret or a node
 * credential only ever travels inside TLS to a certificate of the cluster's own CA.
 */
import { Hono } from "hono";
import { z } from "zod";
import type { Logger } from "../../core/log.ts";
import { bearerToken } from "../auth/admin_tokens.ts";
import { errorResponse, makeOnError } from "../errors.ts";
import { AppError } from "../../core/errors.ts";
import { notLeaderCloseCode, notLeaderReason } from "../../core/protocol/close_codes.ts";
import { readJsonBody } from "../router/read_body.ts";
import type { MirrorService } from "../weights/mirror.ts";
import { serveMirrorFile } from "../weights/serve_mirror_file.ts";
import type { JoinCodes } from "./join_codes.ts";
import type { NodeHub } from "./node_hub.ts";
import type { NodeStore } from "./node_store.ts";

const joinInput = z.object({
  secret: z.string().min(16).max(200),
  name: z.string().min(1).max(100),
});

export function clusterApp(
  deps: {
    joinCodes: JoinCodes;
    nodes: NodeStore;
    hub: NodeHub;
    logger: Logger;
    /** Absent when the control plane keeps no mirror: every file is then not found. */
    mirror?: MirrorService;
    /** Whether this control plane leads now; a standby sends nodes on (always leads, if absent). */
    leads?: () => boolean;
  },
): Hono {
  const app = new Hono();

  app.post("/cluster/v1/join", async (c) => {
    const parsed = joinInput.safeParse(await readJsonBody(c.req.raw, 16 * 1024));
    if (!parsed.success) {
      throw new AppError("invalid_request", { detail: "expected {secret, name}" });
    }
    const joined = await deps.joinCodes.redeem(parsed.data.secret, parsed.data.name);
    deps.logger.info("node joined", { nodeId: joined.nodeId, name: joined.name });
    return c.json(joined, 201);
  });

  /** Lets an agent tell a refused credential from a network fault. */
  app.get("/cluster/v1/whoami", async (c) => {
    const node = await authenticate(c.req.raw);
    return c.json({ nodeId: node.id, name: node.name });
  });

  app.get("/cluster/v1/channel", async (c) => {
    const node = await authenticate(c.req.raw);
    if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
      throw new AppError("invalid_request", { detail: "this endpoint takes a WebSocket upgrade" });
    }
    const { socket, response } = Deno.upgradeWebSocket(c.req.raw);
    socket.onopen = () => {
      // Closed after the upgrade, not refused before it: the agent reads the close code.
      if (deps.leads && !deps.leads()) socket.close(notLeaderCloseCode, notLeaderReason);
      else deps.hub.accept(node, socket);
    };
    return response;
  });

  /** Weights for nodes, so a node needs no route to the hub (the agent tries this first). */
  const mirrorPrefix = "/cluster/v1/mirror/";
  app.on(["GET", "HEAD"], `${mirrorPrefix}*`, async (c) => {
    await authenticate(c.req.raw);
    if (!deps.mirror) throw new AppError("not_found", { path: c.req.path });
    return await serveMirrorFile(deps.mirror, c.req.raw, mirrorPrefix);
  });

  app.notFound((c) => errorResponse(new AppError("not_found", { path: c.req.path })));
  app.onError(makeOnError(deps.logger));
  return app;

  async function authenticate(req: Request) {
    const credential = bearerToken(req);
    const node = credential ? await deps.nodes.byCredential(credential) : undefined;
    if (!node) throw new AppError("node_credential_invalid");
    return node;
  }
}
