/** Models and replicas for operators: the catalog, each replica's state and load, live. */
import type { FC } from "hono/jsx";
import type { ModelEntry } from "../../router/catalog.ts";
import type { ReplicaState, ReplicaView } from "../../router/replicas.ts";
import type { PortalCtx } from "../context.ts";
import type { PortalKey } from "../i18n.ts";
import { Layout } from "../layout.tsx";
import { contextOf, type ModelState } from "../model_rows.ts";
import { stateKey } from "./models.tsx";

export interface AdminModelRow {
  entry: ModelEntry;
  state: ModelState;
  replicas: ReplicaView[];
  queued: number;
}

const replicaKey: Record<ReplicaState, PortalKey> = {
  ready: "replica_state_ready",
  starting: "replica_state_starting",
  restarting: "replica_state_restarting",
  failed: "replica_state_failed",
  stopped: "replica_state_stopped",
  draining: "replica_state_draining",
};

export const AdminModelsTable: FC<{ ctx: PortalCtx; rows: AdminModelRow[] }> = (
  { ctx, rows },
) => {
  const { t } = ctx.words;
  const f = ctx.fmt;
  return (
    <div class="scroll">
      <table>
        <thead>
          <tr>
            <th scope="col">{t("col_model")}</th>
            <th scope="col">{t("col_engine")}</th>
            <th scope="col">{t("col_state")}</th>
            <th scope="col" class="num">{t("col_context")}</th>
            <th scope="col" class="num">{t("col_queued")}</th>
            <th scope="col">{t("col_replicas")}</th>
          </tr>
        </thead>
        {rows.map((r) => (
          <tbody class="model">
            <tr>
              <th scope="row">{r.entry.name}</th>
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
            </tr>
            {r.entry.description && (
              <tr class="desc">
                <td colspan={6}>{r.entry.description}</td>
              </tr>
            )}
          </tbody>
        ))}
      </table>
    </div>
  );
};

export const AdminModelsPage: FC<{ ctx: PortalCtx; rows: AdminModelRow[] }> = ({ ctx, rows }) => {
  const { t } = ctx.words;
  return (
    <Layout ctx={ctx} title={t("admin_models_title")} path="/admin/models">
      <p class="muted">{t("admin_models_later")}</p>
      <p id="live-paused" class="muted small" hidden>{t("cluster_paused")}</p>
      <div id="live" data-live="/admin/models?part=live" data-every="4000">
        <AdminModelsTable ctx={ctx} rows={rows} />
      </div>
      <script src="/static/live.js" defer></script>
    </Layout>
  );
};
