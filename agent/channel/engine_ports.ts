/** A port for a new engine: from the configured range when there is one, checked free now. */
export function pickEnginePort(range: string, host: string): number {
  if (!range.trim()) return 0; // the supervisor picks any free port
  const m = /^\s*(\d+)\s*-\s*(\d+)\s*$/.exec(range);
  if (!m) throw new TypeError(`engines.ports '${range}' must be a range like 20000-20999`);
  const [lo, hi] = [Number(m[1]), Number(m[2])];
  if (!(lo >= 1 && hi <= 65535 && lo <= hi)) {
    throw new TypeError(`engines.ports '${range}' is not a range of ports`);
  }
  const span = hi - lo + 1;
  const first = Math.floor(Math.random() * span);
  for (let i = 0; i < span; i++) {
    const port = lo + ((first + i) % span);
    try {
      Deno.listen({ hostname: host, port }).close();
      return port;
    } catch {
      // Taken: try the next.
    }
  }
  throw new TypeError(`no free port left in engines.ports ${range}`);
}
