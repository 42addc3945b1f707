/**
 * Engine ports from a configured range (firewalls on cluster nodes open one range, e.g.
 * 30000-30999), each checked free by binding it a moment before the engine does. Ports the
 * supervisor has handed out are skipped even while their engine has not bound them yet, and the
 * search starts after the last port given, so a port just freed is not handed out again at once.
 */
export interface PortRange {
  readonly first: number;
  readonly last: number;
}

/** "30000-30999" → {first: 30000, last: 30999}; throws RangeError on anything else. */
export function parsePortRange(text: string): PortRange {
  const m = /^\s*(\d{1,5})\s*-\s*(\d{1,5})\s*$/.exec(text);
  const first = Number(m?.[1]);
  const last = Number(m?.[2]);
  if (!m || first < 1 || last > 65535 || first > last) {
    throw new RangeError(`"${text}" is not a port range like 30000-30999`);
  }
  return { first, last };
}

export class NoFreePortError extends Error {
  override name = "NoFreePortError";
}

export class PortPicker {
  readonly #range: PortRange | undefined;
  #next: number;

  /** Without a range the kernel picks (an ephemeral port). */
  constructor(range?: PortRange) {
    this.#range = range;
    // Start at a random place in the range: agents that start together (several on one
    // machine, or tests in parallel) would otherwise all try the same first port, and between
    // the check and the engine's own bind one of them can lose it, or a router can reach
    // another agent's engine.
    this.#next = range
      ? range.first + Math.floor(Math.random() * (range.last - range.first + 1))
      : 0;
  }

  /** A port free right now on `host` and not in `taken`. Throws NoFreePortError. */
  pick(host: string, taken: ReadonlySet<number>): number {
    const range = this.#range;
    if (!range) return ephemeral(host);
    const size = range.last - range.first + 1;
    for (let i = 0; i < size; i++) {
      const port = range.first + ((this.#next - range.first + i) % size);
      if (taken.has(port) || !isFree(host, port)) continue;
      this.#next = port + 1 > range.last ? range.first : port + 1;
      return port;
    }
    throw new NoFreePortError(`no free port in ${range.first}-${range.last} on ${host}`);
  }
}

export function isFree(host: string, port: number): boolean {
  try {
    Deno.listen({ hostname: host, port }).close();
    return true;
  } catch {
    return false;
  }
}

function ephemeral(host: string): number {
  const listener = Deno.listen({ hostname: host, port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}
