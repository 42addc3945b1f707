/**
 * Knowledge bases: each collection the viewer may read with its status (documents, passages
 * embedded of all, the model, the last error) and, where they may change it, a form to add a
 * document. The status table is re-read every few seconds by web/live.js, so a large import's
 * progress shows as it runs.
 */
import type { FC } from "hono/jsx";
import type { PortalCtx, Viewer } from "../context.ts";
import { ColumnHeads, Layout, Notice } from "../layout.tsx";

export interface KbRow {
  id: string;
  name: string;
  place: string;
  model: string;
  documents: number;
  passages: number;
  embedded: number;
  importing: number;
  lastError: string | null;
  writable: boolean;
}

export const KbRows: FC<{ ctx: PortalCtx; viewer: Viewer; rows: KbRow[] }> = (
  { ctx, viewer, rows },
) => {
  const { t } = ctx.words;
  if (rows.length === 0) return <p>{t("kb_none")}</p>;
  return (
    <div class="scroll">
      <table>
        <ColumnHeads
          t={t}
          cols={[
            "col_name",
            "col_kb_place",
            "col_model",
            "col_kb_documents",
            "col_kb_passages",
            "col_kb_error",
            "col_actions",
          ]}
        />
        <tbody>
          {rows.map((r) => (
            <tr>
              <th scope="row">{r.name}</th>
              <td>{r.place}</td>
              <td class="mono">{r.model}</td>
              <td>{r.documents}</td>
              <td>
                {r.embedded}/{r.passages}
                {r.importing > 0 && ` (${t("kb_importing", { n: r.importing })})`}
              </td>
              <td>{r.lastError ?? "-"}</td>
              <td>
                {r.writable && (
                  <form
                    method="post"
                    action={`/admin/kb/${r.id}/documents`}
                    enctype="multipart/form-data"
                  >
                    <input type="hidden" name="_csrf" value={viewer.csrf} />
                    <label>
                      <span class="sr-only">{t("kb_file")}</span>
                      <input
                        type="file"
                        name="file"
                        required
                        accept=".txt,.md,.markdown,.html,.htm,.pdf"
                      />
                    </label>
                    <button type="submit">{t("kb_upload")}</button>
                  </form>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
};

export const KbPage: FC<{
  ctx: PortalCtx;
  viewer: Viewer;
  rows: KbRow[];
  notice?: { kind: "ok" | "error"; text: string } | undefined;
}> = ({ ctx, viewer, rows, notice }) => {
  const { t } = ctx.words;
  return (
    <Layout ctx={ctx} title={t("kb_title")} path="/admin/kb">
      {notice && <Notice kind={notice.kind}>{notice.text}</Notice>}
      <p class="muted small">{t("kb_help")}</p>
      <div data-live="/admin/kb?part=live" data-every="3000">
        <KbRows ctx={ctx} viewer={viewer} rows={rows} />
      </div>
      <script src="/static/live.js" defer></script>
    </Layout>
  );
};
