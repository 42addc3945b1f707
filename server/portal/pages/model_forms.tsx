/**
 * The models admin page's forms: start / stop / restart, context and longest answer, remove (with
 * a confirm step), the placement of each replica, and the serve form (source → plan → serve). Every
 * form posts to the portal, which calls the models admin API in-process with the form's CSRF token.
 */
import type { FC } from "hono/jsx";
import type { ReplicaRow } from "../../models/model_services.ts";
import type { Plan } from "../../models/plan.ts";
import type { PortalCtx } from "../context.ts";
import type { PortalKey } from "../i18n.ts";
import { ColumnHeads, Layout, Notice } from "../layout.tsx";
import type { Notice as NoticeData } from "../render.ts";

const placementKey: Record<string, PortalKey> = {
  pending: "placement_pending",
  fetching: "placement_fetching",
  starting: "placement_starting",
  ready: "placement_ready",
  draining: "placement_draining",
  stopped: "placement_stopped",
  failed: "placement_failed",
};

const path = (name: string, verb: string) => `/admin/models/${encodeURIComponent(name)}/${verb}`;

/** Where each replica is placed and how far it got (fetching shows its percent). */
export const Placements: FC<{ ctx: PortalCtx; rows: ReplicaRow[] }> = ({ ctx, rows }) => {
  const { t } = ctx.words;
  if (!rows.length) return <span class="muted small">{t("no_placements")}</span>;
  return (
    <ul class="plain">
      {rows.map((r) => (
        <li class="placement">
          <span class={`badge placement-${r.state}`}>
            {placementKey[r.state] ? t(placementKey[r.state]!) : r.state}
          </span>{" "}
          <span class="small">{t("placed_on", { node: r.node })}</span>
          {r.fetched?.percent !== undefined && (
            <span class="small">{` ${t("fetched_percent", { n: r.fetched.percent })}`}</span>
          )}
          {r.reason && <span class="small muted data">{` — ${r.reason}`}</span>}
        </li>
      ))}
    </ul>
  );
};

/** Start / stop / restart, context and longest answer, and the way to remove. */
export const ModelActions: FC<
  { ctx: PortalCtx; csrf: string; name: string; stopped: boolean; context: number | null }
> = ({ ctx, csrf, name, stopped, context }) => {
  const { t } = ctx.words;
  const verbs: { verb: string; key: PortalKey }[] = stopped
    ? [{ verb: "start", key: "model_start" }]
    : [{ verb: "stop", key: "model_stop" }, { verb: "restart", key: "model_restart" }];
  return (
    <div class="actions">
      {verbs.map(({ verb, key }) => (
        <form method="post" action={path(name, verb)} class="inline">
          <input type="hidden" name="_csrf" value={csrf} />
          <button
            type="submit"
            class="secondary"
            aria-label={t("model_action_for", { action: t(key), model: name })}
          >
            {t(key)}
          </button>
        </form>
      ))}
      <form method="post" action={path(name, "context")} class="inline">
        <input type="hidden" name="_csrf" value={csrf} />
        <label>
          {t("col_context")}{" "}
          <input
            type="number"
            name="tokens"
            min="1"
            size={8}
            value={context === null ? "" : String(context)}
          />
        </label>{" "}
        <label>
          {t("max_output")} <input type="number" name="max_output" min="1" size={8} />
        </label>{" "}
        <button type="submit" class="secondary">{t("save")}</button>
      </form>
      <a href={path(name, "remove")}>{t("model_remove")}</a>
    </div>
  );
};

export const RemovePage: FC<{ ctx: PortalCtx; csrf: string; name: string }> = (
  { ctx, csrf, name },
) => {
  const { t } = ctx.words;
  return (
    <Layout ctx={ctx} title={t("model_remove_title", { model: name })} path="/admin/models">
      <p>{t("model_remove_confirm", { model: name })}</p>
      <form method="post" action={path(name, "remove")}>
        <input type="hidden" name="_csrf" value={csrf} />
        <label class="check">
          <input type="checkbox" name="purge" value="true" /> {t("model_remove_purge")}
        </label>
        <p>
          <button type="submit" class="danger">{t("model_remove")}</button>{" "}
          <a href="/admin/models">{t("cancel")}</a>
        </p>
      </form>
    </Layout>
  );
};

export interface ServeFields {
  source: string;
  name: string;
  context: string;
  slots: string;
}

const hiddenFields = (f: ServeFields) =>
  Object.entries(f).map(([k, v]) => <input type="hidden" name={k} value={v} />);

/** The source form; the plan (when there is one) and its serve button under it. */
export const ServeForm: FC<
  { ctx: PortalCtx; csrf: string; fields?: ServeFields; plan?: Plan; notice?: NoticeData }
> = ({ ctx, csrf, fields, plan, notice }) => {
  const { t } = ctx.words;
  const f = fields ?? { source: "", name: "", context: "", slots: "" };
  const gb = (b: number) => t("gb_unit", { n: ctx.fmt.int(Math.ceil(b / 1e8) / 10) });
  return (
    <section aria-labelledby="serve-h">
      <h2 id="serve-h">{t("serve_title")}</h2>
      {notice && <Notice kind={notice.kind}>{notice.text}</Notice>}
      <form method="post" action="/admin/models/plan">
        <input type="hidden" name="_csrf" value={csrf} />
        <label>
          {t("serve_source")} <input type="text" name="source" required value={f.source} />
        </label>{" "}
        <label>
          {t("serve_name")} <input type="text" name="name" value={f.name} />
        </label>{" "}
        <label>
          {t("col_context")} <input type="number" name="context" min="1" value={f.context} />
        </label>{" "}
        <label>
          {t("serve_slots")} <input type="number" name="slots" min="1" value={f.slots} />
        </label>{" "}
        <button type="submit" class="secondary">{t("serve_plan")}</button>
      </form>
      {plan && (
        <div class="plan">
          <h3>{t("plan_for", { model: plan.name })}</h3>
          <dl class="pairs">
            <dt>{t("col_engine")}</dt>
            <dd>{plan.engine ?? t("unknown")}</dd>
            <dt>{t("col_context")}</dt>
            <dd>{ctx.fmt.int(plan.context)}</dd>
            <dt>{t("serve_slots")}</dt>
            <dd>{ctx.fmt.int(plan.slots)}</dd>
            {plan.estimate && (
              <>
                <dt>{t("plan_memory")}</dt>
                <dd>
                  {t("plan_memory_parts", {
                    total: gb(plan.estimate.total),
                    weights: gb(plan.estimate.weights),
                    context: gb(plan.estimate.context),
                    engine: gb(plan.estimate.engine),
                  })}
                  {plan.estimate.guessed.length > 0 &&
                    ` (${t("plan_guessed")}: ${plan.estimate.guessed.join(", ")})`}
                </dd>
              </>
            )}
          </dl>
          {plan.refusals.length > 0 && (
            <Notice kind="error">
              <strong>{t("plan_refused")}</strong>
              <ul>{plan.refusals.map((r) => <li class="refusal data">{r.message}</li>)}</ul>
            </Notice>
          )}
          {plan.warnings.length > 0 && (
            <div class="warnings">
              <strong>{t("plan_warnings")}</strong>
              <ul>{plan.warnings.map((w) => <li class="warning data">{w.message}</li>)}</ul>
            </div>
          )}
          {plan.layouts.length > 0 && (
            <table>
              <ColumnHeads
                t={t}
                cols={["plan_layout", { num: "plan_memory" }, "plan_nodes", "plan_free_now"]}
              />
              <tbody>
                {plan.layouts.map((l) => (
                  <tr>
                    <td>
                      {l.device === "cpu" ? t("plan_cpu") : t("plan_gpus", { n: l.gpus })}
                    </td>
                    <td class="num">{gb(l.total.total)}</td>
                    <td>{l.nodes.join(", ")}</td>
                    <td>{l.freeNow.join(", ")}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {plan.ok && (
            <form method="post" action="/admin/models/serve">
              <input type="hidden" name="_csrf" value={csrf} />
              {hiddenFields(f)}
              <button type="submit">{t("serve_button", { model: plan.name })}</button>
            </form>
          )}
        </div>
      )}
    </section>
  );
};
