/**
 * Keeps more conversations warm than a llama.cpp replica has slots. The router pins each session
 * to a slot (`id_slot`); when a new session needs a slot another one holds, the holder's cache is
 * saved to disk first (`POST /slots/N?action=save`, the engine started with `--slot-save-path`),
 * and a session coming back to a replica that saved it is restored into its slot
 * (`action=restore`) before its request runs. An engine that refuses the actions (an older build,
 * no save path) is left to pick slots itself from then on. File names are session hashes: no
 * prompt or key ever names a file.
 *
 * Only while this control plane is the only one routing to the replica (it has no `share` of its
 * slots, server/cluster/slot_shares.ts): each keeper knows only the pins it made, so keepers on
 * several control planes pin two conversations to one slot and evict each other's caches
 * (measured on llama-server, 4 conversations over 3 control planes: 32.5 % cached with the
 * keepers, 78.7 % with the engine choosing slots by prompt similarity).
 */

export interface SlotReplica {
  readonly id: string;
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly slots: number;
  /** Set while other control planes route to the replica too. */
  readonly share?: number | undefined;
}

/** A slot held for one request; `release` when its answer has ended. */
export interface SlotClaim {
  readonly slot: number;
  release(): void;
}

interface ReplicaSlots {
  readonly held: (number | undefined)[];
  readonly busy: boolean[];
  readonly lastUsed: number[];
  /** Sessions saved on this replica's disk, least recently used first. */
  readonly saved: Map<number, true>;
  refused: boolean;
}

export class SlotKeeper {
  readonly #replicas = new Map<string, ReplicaSlots>();
  #tick = 0;

  constructor(
    private readonly opts: { engines: ReadonlySet<string>; maxSaved: number; timeoutMs: number },
  ) {}

  /** A slot for the session's request, its cache in place; undefined: let the engine choose. */
  async claim(
    r: SlotReplica,
    engine: string,
    session: number | undefined,
  ): Promise<SlotClaim | undefined> {
    if (session === undefined || !this.opts.engines.has(engine)) return undefined;
    if (r.share !== undefined) return undefined;
    const s = this.#state(r);
    if (s.refused) return undefined;
    const k = pickSlot(s, session);
    if (k === undefined) return undefined;
    s.busy[k] = true;
    s.lastUsed[k] = ++this.#tick;
    const release = () => {
      s.busy[k] = false;
    };
    const holder = s.held[k];
    if (holder !== session) {
      s.held[k] = session;
      if (holder !== undefined && !await this.#save(r, s, k, holder)) {
        s.refused = true;
        release();
        return undefined;
      }
      // A file the engine no longer has (it restarted elsewhere, its directory was cleared)
      // costs this session its cache, nothing more.
      if (s.saved.has(session) && !await this.#act(r, k, "restore", session)) {
        s.saved.delete(session);
      }
    }
    return { slot: k, release };
  }

  async #save(r: SlotReplica, s: ReplicaSlots, k: number, session: number): Promise<boolean> {
    if (!await this.#act(r, k, "save", session)) return false;
    s.saved.delete(session);
    s.saved.set(session, true);
    if (s.saved.size > this.opts.maxSaved) s.saved.delete(s.saved.keys().next().value!);
    return true;
  }

  async #act(r: SlotReplica, k: number, action: string, session: number): Promise<boolean> {
    try {
      const res = await fetch(`${r.baseUrl}/slots/${k}?action=${action}`, {
        method: "POST",
        headers: { authorization: `Bearer ${r.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ filename: `llmgw-${session.toString(16)}.bin` }),
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
      await res.body?.cancel();
      return res.ok;
    } catch {
      return false;
    }
  }

  #state(r: SlotReplica): ReplicaSlots {
    // A replica that moved to another engine starts with empty slots and no files.
    const id = `${r.id} ${r.baseUrl}`;
    let s = this.#replicas.get(id);
    if (!s || s.held.length !== r.slots) {
      const n = Number.isFinite(r.slots) ? r.slots : 0;
      s = {
        held: Array(n).fill(undefined),
        busy: Array(n).fill(false),
        lastUsed: Array(n).fill(0),
        saved: new Map(),
        refused: false,
      };
      this.#replicas.set(id, s);
    }
    return s;
  }
}

/** The session's own slot if free, else an empty one, else the least recently used free one. */
function pickSlot(s: ReplicaSlots, session: number): number | undefined {
  let best: number | undefined;
  for (let k = 0; k < s.held.length; k++) {
    if (s.busy[k]) continue;
    if (s.held[k] === session) return k;
    if (best === undefined) best = k;
    else if (
      s.held[best] !== undefined && (s.held[k] === undefined || s.lastUsed[k]! < s.lastUsed[best]!)
    ) {
      best = k;
    }
  }
  return best;
}
