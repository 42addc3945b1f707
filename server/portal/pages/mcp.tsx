/**
 * The MCP pages: a person's (the servers, and authorising those that act with each person's own
 * account) and the administrators' (registrations, the shared-credential warning, a form to add,
 * replace or narrow one, and removal). Header names are shown, never a value or its file.
 */
import type { FC } from "hono/jsx";
import { connectPath } from "../../mcp/person_auth.ts";
import type { describeServer } from "../../mcp/server_book.ts";
import type { PortalCtx, Viewer } from "../context.ts";
import { ColumnHeads, Layout, Notice } from "../layout.tsx";

export type McpRow = ReturnType<typeof describeServer>;

export const ToolsPage: FC<{
  ctx: PortalCtx;
  rows: McpRow[];
  connected: Set<string>;
  notice?: { kind: "ok" | "error"; text: string };
}> = ({ ctx, rows, connected, notice }) => {
  const { t } = ctx.words;
  return (
    <Layout ctx={ctx} title={t("tools_title")} path="/tools">
      {notice && <Notice kind={notice.kind}>{notice.text}</Notice>}
      <p class="muted">{t("tools_help")}</p>
      {rows.length === 0 ? <p>{t("mcp_none")}</p> : (
        <div class="scroll">
          <table>
            <ColumnHeads t={t} cols={["col_name", "col_mcp_auth", "col_actions"]} />
            <tbody>
              {rows.map((r) => (
                <tr>
                  <th scope="row" class="mono">{r.name}</th>
                  <td>{t(r.auth === "oauth" ? "mcp_auth_oauth" : "mcp_auth_shared")}</td>
                  <td>
                    {r.auth === "oauth" && !connected.has(r.name) && (
                      <a href={connectPath(r.name)}>{t("mcp_authorize")}</a>
                    )}
                    {r.auth === "oauth" && connected.has(r.name) && (
                      <form
                        method="post"
                        action={`/tools/${encodeURIComponent(r.name)}/forget`}
                        class="inline"
                      >
                        <input type="hidden" name="_csrf" value={ctx.viewer?.csrf ?? ""} />
                        <span>{t("mcp_authorized_state")}</span>{" "}
                        <button type="submit" class="secondary">{t("mcp_forget")}</button>
                      </form>
                    )}
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

export const AdminMcpPage: FC<{
  ctx: PortalCtx;
  viewer: Viewer;
  rows: McpRow[];
  mayChange: boolean;
  notice?: { kind: "ok" | "error"; text: string };
}> = ({ ctx, viewer, rows, mayChange, notice }) => {
  const { t } = ctx.words;
  return (
    <Layout ctx={ctx} title={t("nav_mcp")} path="/admin/mcp">
      {notice && <Notice kind={notice.kind}>{notice.text}</Notice>}
      <p class="muted">{t("mcp_admin_help")}</p>
      {rows.length === 0 ? <p>{t("mcp_none")}</p> : (
        <div class="scroll">
          <table>
            <ColumnHeads
              t={t}
              cols={[
                "col_name",
                "col_url",
                "col_mcp_auth",
                "col_mcp_headers",
                "col_mcp_tools",
                "col_mcp_rate",
                mayChange && "col_actions",
              ]}
            />
            <tbody>
              {rows.map((r) => (
                <tr>
                  <th scope="row" class="mono">{r.name}</th>
                  <td class="mono">{r.url}</td>
                  <td>
                    {t(r.auth === "oauth" ? "mcp_auth_oauth" : "mcp_auth_shared")}
                    {r.shared_credential && (
                      <p class="warn">{t("mcp_shared_warning", { server: r.name })}</p>
                    )}
                  </td>
                  <td class="mono">{r.headers.join(", ") || "-"}</td>
                  <td class="mono">
                    {mayChange
                      ? (
                        <form
                          method="post"
                          action={`/admin/mcp/${encodeURIComponent(r.name)}/tools`}
                          class="inline"
                        >
                          <input type="hidden" name="_csrf" value={viewer.csrf} />
                          <input
                            name="tools"
                            value={r.tools?.join(", ") ?? ""}
                            placeholder={t("mcp_all_tools")}
                            aria-label={t("field_mcp_tools")}
                          />{" "}
                          <button type="submit" class="secondary">{t("mcp_narrow")}</button>
                        </form>
                      )
                      : r.tools?.join(", ") ?? t("mcp_all_tools")}
                  </td>
                  <td>{r.rate ?? t("mcp_unlimited")}</td>
                  {mayChange && (
                    <td>
                      <form
                        method="post"
                        action={`/admin/mcp/${encodeURIComponent(r.name)}/remove`}
                      >
                        <input type="hidden" name="_csrf" value={viewer.csrf} />
                        <button type="submit" class="secondary">{t("mcp_remove")}</button>
                      </form>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {mayChange && (
        <form method="post" action="/admin/mcp" class="card grid">
          <input type="hidden" name="_csrf" value={viewer.csrf} />
          <div>
            <label for="mcp-name">{t("field_mcp_name")}</label>
            <input id="mcp-name" name="name" required pattern="[a-z][a-z0-9_\-]{0,39}" />
          </div>
          <div>
            <label for="mcp-url">{t("field_mcp_url")}</label>
            <input id="mcp-url" name="url" type="url" required />
          </div>
          <div>
            <label for="mcp-auth">{t("field_mcp_auth")}</label>
            <select id="mcp-auth" name="auth">
              <option value="headers">{t("mcp_auth_shared")}</option>
              <option value="oauth">{t("mcp_auth_oauth")}</option>
            </select>
          </div>
          <div>
            <label for="mcp-bearer">{t("field_mcp_bearer_file")}</label>
            <input id="mcp-bearer" name="bearer_file" placeholder="/etc/llmgw/jira.token" />
          </div>
          <div>
            <label for="mcp-tools">{t("field_mcp_tools")}</label>
            <input id="mcp-tools" name="tools" placeholder="search, get_*" />
          </div>
          <div>
            <label for="mcp-rate">{t("field_mcp_rate")}</label>
            <input id="mcp-rate" name="rate" type="number" min="1" />
          </div>
          <div class="end">
            <button type="submit">{t("mcp_add")}</button>
          </div>
        </form>
      )}
    </Layout>
  );
};
