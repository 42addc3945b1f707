/**
 * Finding a hung engine. A ready engine that stops answering (SIGSTOPped, deadlocked) would
 * otherwise stay "ready" for ever, every request sent to it timing out: its own health route is
 * probed on an interval, one probe at a time. After `failures` failures in a row it is unhealthy;
 * one that answers again has recovered; one that fails as many more is hung, and the watch ends
 * (the supervisor restarts it).
 */
export interface HealthWatch {
  /** One bounded probe: true when the engine answered ready. */
  readonly probe: (timeoutMs: number) => Promise<boolean>;
  readonly intervalMs: number;
  /** Failures in a row before the engine counts as unhealthy (at least 1). */
  readonly failures: number;
  /** False once the engine watched is not the one running (stopped, replaced): the watch ends. */
  readonly current: () => boolean;
  readonly onUnhealthy: (failures: number) => void;
  readonly onRecovered: () => void;
  readonly onHung: (failures: number) => void;
}

/** Starts watching; the function returned ends the watch. */
export function watchHealth(w: HealthWatch): () => void {
  const timeoutMs = Math.min(w.intervalMs, 5_000);
  let failures = 0;
  let probing = false;
  let ended = false;
  const end = () => {
    ended = true;
    clearInterval(timer);
  };
  const timer = setInterval(async () => {
    if (ended || !w.current()) return end();
    if (probing) return;
    probing = true;
    const ok = await w.probe(timeoutMs).catch(() => false);
    probing = false;
    if (ended || !w.current()) return end();
    if (ok) {
      if (failures >= w.failures) w.onRecovered();
      failures = 0;
      return;
    }
    failures++;
    if (failures === w.failures) w.onUnhealthy(failures);
    if (failures < 2 * w.failures) return;
    end();
    w.onHung(failures);
  }, w.intervalMs);
  Deno.unrefTimer(timer);
  return end;
}
