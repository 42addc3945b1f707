/** Models and replicas for operators: the catalog, each replica's state and load, live. */
import type { FC } from "hono/jsx";
import type { ModelEntry } from "../../router/catalog.ts";
import type { ReplicaState, ReplicaView } from "../../router/replicas.ts";
import type { ReplicaRow } from "../../models/model_services.ts";
import type { Plan } from "../../models/plan.ts";
import type { PortalCtx } from "../context.ts";
import type { PortalKey } from "../i18n.ts";
import { ColumnHeads, Layout, Notice } from "../layout.tsx";
import type { Notice as NoticeData } from "../render.ts";
import { contextOf, type ModelState } from "../model_rows.ts";
import { ModelActions, Placements, type ServeFields, ServeForm } from "./model_forms.tsx";
import { stateKey } from "./models.tsx";

export interface AdminModelRow {
  entry: ModelEntry;
  state: ModelState;
  replicas: ReplicaView[];
  queued: number;
  /** Where the models service placed each replica (empty when this server places none). */
  placements: ReplicaRow[];
}

/** What the forms need: the token, and whether the viewer may change anything. */
export interface ModelForms {
  csrf: string;
  canWrite: boolean;
}

export const replicaKey: Record<ReplicaState, PortalKey> = {
  ready: "replica_state_ready",
  starting: "replica_state_starting",
  unhealthy: "replica_state_unhealthy",
  restarting: "replica_state_restarting",
  failed: "replica_state_failed",
  stopped: "replica_state_stopped",
  draining: "replica_state_draining",
};

export const AdminModelsTable: FC<{ ctx: PortalCtx; rows: AdminModelRow[]; forms: ModelForms }> = (
  { ctx, rows, forms },
) => {
  const { t } = ctx.words;
  const f = ctx.fmt;
  return (
    <div class="scroll">
      <table>
        <ColumnHeads
          t={t}
          cols={[
            "col_model",
            "col_engine",
            "col_state",
            { num: "col_context" },
            { num: "col_queued" },
            "col_replicas",
            "col_placements",
          ]}
        />
        {rows.map((r) => (
          <tbody class="model">
            <tr>
              <th scope="row">
                <a href={`/admin/models/${encodeURIComponent(r.entry.name)}`}>{r.entry.name}</a>
              </th>
              <td>{r.entry.engine}</td>
              <td>
                <span class={`badge state-${r.state}`}>{t(stateKey[r.state])}</span>
              </td>
              <td class="num">
                {contextOf(r.entry) === null ? t("unknown") : f.int(contextOf(r.entry)!)}
              </td>
              <td class="num">{f.int(r.queued)}</td>
              <td>
                {r.replicas.length === 0
                  ? <span class="muted">{t("no_replicas")}</span>
                  : (
                    <ul class="plain">
                      {r.replicas.map((x) => (
                        <li>
                          <span class="mono">{x.id}</span>{" "}
                          <span class={`badge replica-${x.state}`}>{t(replicaKey[x.state])}</span>
                          {" "}
                          <span class="small muted">
                            {`${t("col_in_flight")}: ${f.int(x.inFlight)}${
                              x.slots ? ` / ${f.int(x.slots)}` : ""
                            }`}
                          </span>
                        </li>
                      ))}
                    </ul>
                  )}
              </td>
              <td>
                <Placements ctx={ctx} rows={r.placements} />
              </td>
            </tr>
            {forms.canWrite && (
              <tr class="model-actions">
                <td colspan={7}>
                  <ModelActions
                    ctx={ctx}
                    csrf={forms.csrf}
                    name={r.entry.name}
                    stopped={r.entry.stopped}
                    context={contextOf(r.entry)}
                  />
                </td>
              </tr>
            )}
            {r.entry.description && (
              <tr class="desc">
                <td colspan={7}>
                  <span>{r.entry.description}</span>
                </td>
              </tr>
            )}
          </tbody>
        ))}
      </table>
    </div>
  );
};

export const AdminModelsPage: FC<{
  ctx: PortalCtx;
  rows: AdminModelRow[];
  forms: ModelForms;
  notice?: NoticeData;
  serve?: { fields: ServeFields; plan?: Plan; notice?: NoticeData };
}> = ({ ctx, rows, forms, notice, serve }) => {
  const { t } = ctx.words;
  return (
    <Layout ctx={ctx} title={t("admin_models_title")} path="/admin/models">
      {notice && <Notice kind={notice.kind}>{notice.text}</Notice>}
      <p id="live-paused" class="muted small" hidden>{t("cluster_paused")}</p>
      <div id="live" data-live="/admin/models?part=live" data-every="4000">
        <AdminModelsTable ctx={ctx} rows={rows} forms={forms} />
      </div>
      {forms.canWrite && (
        <ServeForm
          ctx={ctx}
          csrf={forms.csrf}
          {...(serve?.fields ? { fields: serve.fields } : {})}
          {...(serve?.plan ? { plan: serve.plan } : {})}
          {...(serve?.notice ? { notice: serve.notice } : {})}
        />
      )}
      <script src="/static/live.js" defer></script>
    </Layout>
  );
};
