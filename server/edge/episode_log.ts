/**
 * Logs a recurring trouble once per episode: the first time, then not again until it has been
 * quiet for `quietMs`; the next line says how many times it came back meanwhile. A flood of
 * refused connections must not become a flood of log lines.
 */
import type { Logger } from "../../core/log.ts";

export type EpisodeLog = (kind: string, message: string, fields?: Record<string, unknown>) => void;

export function episodeLog(logger: Logger, quietMs = 60_000): EpisodeLog {
  const episodes = new Map<string, { last: number; repeats: number }>();
  return (kind, message, fields = {}) => {
    const now = performance.now();
    const e = episodes.get(kind);
    if (e && now - e.last < quietMs) {
      e.last = now;
      e.repeats++;
      return;
    }
    logger.warn(message, { ...fields, ...(e?.repeats ? { repeatsInLastEpisode: e.repeats } : {}) });
    episodes.set(kind, { last: now, repeats: 0 });
  };
}
