/**
 * A model's engine log on its page: the last lines each replica's engine printed, as its node's
 * agent keeps them (secrets hidden there). web/engine_log.js reads the lines again every few
 * seconds while "keep reading" is ticked; the lines themselves are not a live region (an engine
 * can print many a second), only a short polite status says the log was updated, at most twice a
 * minute, so a screen reader is told without being flooded.
 */
import type { FC } from "hono/jsx";
import type { EngineLogAnswer } from "../../nodes/engine_log_waits.ts";
import type { PortalCtx } from "../context.ts";

/** One replica's log as the admin API answered. */
export type ReplicaLog = EngineLogAnswer & { replica: string };

/** Lines asked for per replica: enough to see a start or a crash, short enough to read. */
export const pageLogLines = 100;

const unavailableKey = {
  agent_too_old: "model_log_agent_too_old",
  not_connected: "model_log_not_connected",
  no_answer: "model_log_no_answer",
} as const;

/** The part web/engine_log.js reads again: each replica's lines, or why there are none. */
export const EngineLogs: FC<{ ctx: PortalCtx; logs: ReplicaLog[] }> = ({ ctx, logs }) => {
  const { t } = ctx.words;
  if (logs.length === 0) return <p class="muted">{t("model_log_none")}</p>;
  return (
    <>
      {logs.map((l) => {
        const id = `log-${l.replica.replace(/[^A-Za-z0-9_-]/g, "_")}`;
        return (
          <div class="card">
            <h3 id={`${id}-h`} class="small">
              {t("model_log_on", { replica: l.replica, node: l.node })}
            </h3>
            {l.status !== "ok"
              ? <p class="muted">{t(unavailableKey[l.status], { node: l.node })}</p>
              : (
                <>
                  {l.adopted && <p class="small muted">{t("model_log_adopted")}</p>}
                  {l.lines.length === 0
                    ? <p class="muted">{t("model_log_empty")}</p>
                    : (
                      <pre id={id} class="log data" tabindex={0} aria-labelledby={`${id}-h`}>
                        <code>{l.lines.join("\n")}</code>
                      </pre>
                    )}
                </>
              )}
          </div>
        );
      })}
    </>
  );
};

/** The section: heading, what it shows, the pause switch, the status, and the lines. */
export const EngineLogSection: FC<{ ctx: PortalCtx; model: string; logs: ReplicaLog[] }> = (
  { ctx, model, logs },
) => {
  const { t } = ctx.words;
  return (
    <section aria-labelledby="log-h">
      <h2 id="log-h">{t("model_log")}</h2>
      <p class="small muted">{t("model_log_note", { lines: pageLogLines })}</p>
      <label class="check">
        <input type="checkbox" id="log-follow" checked /> {t("model_log_follow")}
      </label>
      <p
        id="log-status"
        class="small muted"
        role="status"
        data-said={t("model_log_updated", { time: "{time}" })}
      >
      </p>
      <div
        id="engine-log"
        data-log={`/admin/models/${encodeURIComponent(model)}?part=log`}
        data-every="5000"
      >
        <EngineLogs ctx={ctx} logs={logs} />
      </div>
      <script src="/static/engine_log.js" defer></script>
    </section>
  );
};
