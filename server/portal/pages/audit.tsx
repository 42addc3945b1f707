/** The audit log, with its filters: who, what, on which target (by name), and what changed. */
import type { FC } from "hono/jsx";
import type { ChangedField } from "../../audit/changed_fields.ts";
import type { PortalCtx } from "../context.ts";
import { ColumnHeads, Layout } from "../layout.tsx";

export interface AuditRow {
  id: string;
  at: number;
  actorName: string;
  action: string;
  /** The target by name where it has one ("Project app"), else its kind and id. */
  target: string;
  changes: ChangedField[];
}

const Changes: FC<{ ctx: PortalCtx; changes: ChangedField[] }> = ({ ctx, changes }) => {
  const { t } = ctx.words;
  if (!changes.length) return <span class="muted">–</span>;
  return (
    <ul class="plain changes">
      {changes.map((x) => (
        <li>
          {x.field && <span class="mono">{x.field}</span>}
          {x.field && ": "}
          {x.before === null
            ? <em>{t("audit_none_value")}</em>
            : <del class="data">{x.before}</del>}
          {" → "}
          {x.after === null ? <em>{t("audit_none_value")}</em> : <ins class="data">{x.after}</ins>}
        </li>
      ))}
    </ul>
  );
};

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
            <ColumnHeads
              t={t}
              cols={["col_when", "col_who", "col_action", "col_target", "col_changes"]}
            />
            <tbody>
              {rows.map((r) => (
                <tr>
                  <td>{ctx.fmt.dateTime(r.at)}</td>
                  <td>{r.actorName}</td>
                  <td class="mono">{r.action}</td>
                  <td>{r.target}</td>
                  <td>
                    <Changes ctx={ctx} changes={r.changes} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Layout>
  );
};
