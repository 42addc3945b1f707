/** Resolves on the first SIGINT or SIGTERM, so a command can shut down in order. */
export function shutdownSignal(): Promise<Deno.Signal> {
  const { promise, resolve } = Promise.withResolvers<Deno.Signal>();
  const signals: Deno.Signal[] = ["SIGINT", "SIGTERM"];
  const handlers = signals.map((sig) => {
    const h = () => {
      for (const [s, fn] of handlers) Deno.removeSignalListener(s, fn);
      resolve(sig);
    };
    Deno.addSignalListener(sig, h);
    return [sig, h] as const;
  });
  return promise;
}
