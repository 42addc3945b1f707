/**
 * The tunnels of the set members this node runs (tunnel.ts), by replica: a worker's one listener,
 * a head's forward per worker. Opened before the member's engine starts, closed once it stops.
 */
import type { Logger } from "../../core/log.ts";
import type { ReplicaSpec } from "../../core/protocol/messages.ts";
import type { SetProfile } from "../engines/engine_adapter.ts";
import { headForward, type Tunnel, type TunnelIdentity, workerTunnel } from "./tunnel.ts";

interface Open {
  tunnels: Tunnel[];
  profile: SetProfile;
  /** A worker's: where its head reaches it (host:port). */
  address?: string;
}

export class SetTunnels {
  /** This node's cluster certificate, from the last welcome. */
  identity: TunnelIdentity | undefined;
  readonly #open = new Map<string, Open>();

  constructor(private readonly logger: Logger) {}

  /**
   * Opens what `spec`'s set part needs and returns the part as its engine is launched with, or
   * undefined for a replica that is no set's member. The same replica again reuses what is open.
   */
  async open(
    spec: ReplicaSpec,
    host: string,
    enginePort: () => number | undefined,
  ): Promise<SetProfile | undefined> {
    const set = spec.launch?.set;
    if (!set) return undefined;
    const known = this.#open.get(spec.replicaId);
    if (known) return known.profile;
    const identity = this.identity;
    if (!identity) {
      throw new Error("no cluster certificate from the control plane: a set's tunnel needs one");
    }
    const base: SetProfile = {
      role: set.role,
      ...(set.layers !== undefined ? { layers: set.layers } : {}),
      ...(set.nodes !== undefined ? { nodes: set.nodes } : {}),
      ...(set.rank !== undefined ? { rank: set.rank } : {}),
      ...(set.memoryBytes !== undefined ? { memoryBytes: set.memoryBytes } : {}),
      ...(set.master !== undefined ? { master: set.master } : {}),
    };
    if (set.role === "worker") {
      const t = await workerTunnel({
        identity,
        host,
        head: set.head,
        target: enginePort,
        logger: this.logger.child({ replicaId: spec.replicaId }),
      });
      const address = `${host.includes(":") ? `[${host}]` : host}:${t.port}`;
      this.#open.set(spec.replicaId, { tunnels: [t], profile: base, address });
      return base;
    }
    const tunnels: Tunnel[] = [];
    try {
      for (const w of set.workers ?? []) {
        tunnels.push(
          await headForward({
            identity,
            remote: w.address.replace(/^tls:\/\//, ""),
            worker: w.node,
            logger: this.logger.child({ replicaId: spec.replicaId }),
          }),
        );
      }
    } catch (e) {
      await Promise.all(tunnels.map((t) => t.close()));
      throw e;
    }
    const profile: SetProfile = {
      ...base,
      workers: (set.workers ?? []).map((w, i) => ({
        address: `127.0.0.1:${tunnels[i]!.port}`,
        ...(w.layers !== undefined ? { layers: w.layers } : {}),
      })),
    };
    this.#open.set(spec.replicaId, { tunnels, profile });
    return profile;
  }

  /** Where a worker replica's head reaches it, or undefined for any other replica. */
  workerAddress(replicaId: string): string | undefined {
    return this.#open.get(replicaId)?.address;
  }

  async close(replicaId: string): Promise<void> {
    const o = this.#open.get(replicaId);
    this.#open.delete(replicaId);
    await Promise.all(o?.tunnels.map((t) => t.close()) ?? []);
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.#open.keys()].map((id) => this.close(id)));
  }
}
