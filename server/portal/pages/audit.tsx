/** The audit log, with its filters. */
import type { FC } from "hono/jsx";
import type { PortalCtx } from "../context.ts";
import { ColumnHeads, Layout } from "../layout.tsx";

export interface AuditRow {
  id: string;
  at: number;
  actorName: string;
  action: string;
  targetKind: string;
  targetId: string;
}

export const AuditPage: FC<{
  ctx: PortalCtx;
  rows: AuditRow[];
  filter: { actor: string; target: string };
}> = ({ ctx, rows, filter }) => {
  const { t } = ctx.words;
  return (
    <Layout ctx={ctx} title={t("audit_title")} path="/admin/audit">
      <form method="get" action="/admin/audit" class="card grid">
        <div>
          <label for="f-actor">{t("filter_actor")}</label>
          <input id="f-actor" name="actor" value={filter.actor} />
        </div>
        <div>
          <label for="f-target">{t("filter_target")}</label>
          <input id="f-target" name="target" value={filter.target} />
        </div>
        <div class="end">
          <button type="submit">{t("filter")}</button>
        </div>
      </form>
      {rows.length === 0 ? <p>{t("audit_none")}</p> : (
        <div class="scroll">
          <table>
            <ColumnHeads t={t} cols={["col_when", "col_who", "col_action", "col_target"]} />
            <tbody>
              {rows.map((r) => (
                <tr>
                  <td>{ctx.fmt.dateTime(r.at)}</td>
                  <td>{r.actorName}</td>
                  <td class="mono">{r.action}</td>
                  <td class="mono">{`${r.targetKind} ${r.targetId}`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Layout>
  );
};
