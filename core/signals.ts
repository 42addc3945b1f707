/**
 * SIGINT and SIGTERM, so that a command shuts down in order. The first asks for an orderly stop
 * (requests in flight finish within their grace, engines get theirs); a second asks to stop now
 * (what is open is cut, engines are killed, usage is still written). After the second, the
 * listeners are gone: a third ends the process at once, the system's way.
 */
export interface ShutdownSignals {
  /** The first SIGINT or SIGTERM. */
  requested: Promise<Deno.Signal>;
  /** The second: stop waiting. Never resolves if none comes. */
  hurried: Promise<Deno.Signal>;
}

export function shutdownSignals(): ShutdownSignals {
  const requested = Promise.withResolvers<Deno.Signal>();
  const hurried = Promise.withResolvers<Deno.Signal>();
  let seen = 0;
  const signals: Deno.Signal[] = ["SIGINT", "SIGTERM"];
  const handlers = signals.map((sig) => {
    const h = () => {
      seen++;
      if (seen === 1) return requested.resolve(sig);
      for (const [s, fn] of handlers) Deno.removeSignalListener(s, fn);
      hurried.resolve(sig);
    };
    Deno.addSignalListener(sig, h);
    return [sig, h] as const;
  });
  return { requested: requested.promise, hurried: hurried.promise };
}
