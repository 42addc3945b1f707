/**
 * A node on the control channel without an agent: joins with a real code over the real TLS
 * listener and speaks the channel protocol from the test, so a test can send exact heartbeats
 * (cards, disks, replicas) and drop the channel when it likes.
 */
import type { ControlPlane } from "../../server/wiring/serve.ts";

export interface ChannelNode {
  nodeId: string;
  inbox: Record<string, unknown>[];
  send(msg: Record<string, unknown>): void;
  /** Closes the channel (the control plane sees the node lost). */
  close(): Promise<void>;
}

/** Makes a join code and redeems it as the node `name` would: the node's credential. */
export async function nodeCredential(cp: ControlPlane, name: string): Promise<string> {
  const { code } = await cp.deps.nodes!.joinCodes.create({ labels: {}, ttlMs: 60_000 });
  const secret = JSON.parse(atob(code.slice(8).replaceAll("-", "+").replaceAll("_", "/"))).secret;
  return (await cp.deps.nodes!.joinCodes.redeem(secret, name)).credential;
}

/**
 * Opens the control channel with `credential` and says nothing yet: every message the control
 * plane sends lands in `inbox`.
 */
export async function openChannel(
  cp: ControlPlane,
  client: Deno.HttpClient,
  credential: string,
): Promise<{ ws: WebSocket; inbox: Record<string, unknown>[] }> {
  const base = cp.clusterUrls![0]!;
  const ws = new WebSocket(`${base.replace("https", "wss")}/cluster/v1/channel`, {
    client,
    headers: { authorization: `Bearer ${credential}` },
  });
  const inbox: Record<string, unknown>[] = [];
  ws.onmessage = (e) => inbox.push(JSON.parse(e.data));
  await new Promise((r, j) => {
    ws.onopen = r;
    ws.onerror = j;
  });
  return { ws, inbox };
}

export async function joinChannelNode(
  cp: ControlPlane,
  caPem: string,
  name: string,
  opts: { credential?: string } = {},
): Promise<ChannelNode & { credential: string }> {
  const credential = opts.credential ?? await nodeCredential(cp, name);
  const client = Deno.createHttpClient({ caCerts: [caPem] });
  const { ws, inbox } = await openChannel(cp, client, credential);
  const closed = new Promise((r) => ws.addEventListener("close", r));
  ws.send(JSON.stringify({ type: "hello", protocol: 1, version: "test", name }));
  for (let i = 0; i < 200 && !inbox.some((m) => m.type === "welcome"); i++) {
    await new Promise((r) => setTimeout(r, 20));
  }
  const welcome = inbox.find((m) => m.type === "welcome");
  if (!welcome) throw new Error("no welcome from the control plane");
  return {
    nodeId: String(welcome.nodeId),
    credential,
    inbox,
    send: (msg) => ws.send(JSON.stringify(msg)),
    async close() {
      if (ws.readyState === WebSocket.OPEN) ws.close();
      await closed;
      client.close();
    },
  };
}

/** Polls `f` every 20 ms until it holds, up to `ms`. */
export async function until(f: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await f()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`condition not met within ${ms} ms: ${f.toString().slice(0, 200)}`);
}
