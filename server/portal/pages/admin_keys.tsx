/** Every API key the viewer may read, with revoke where they may. */
import type { FC } from "hono/jsx";
import type { ApiKeyInfo } from "../../keys/keys.ts";
import type { PortalCtx, Viewer } from "../context.ts";
import { ColumnHeads, Layout, Notice } from "../layout.tsx";
import { KeyStatus, RevokeKeyForm } from "./keys.tsx";

export const AdminKeysPage: FC<{
  ctx: PortalCtx;
  viewer: Viewer;
  keys: (ApiKeyInfo & { owner: string; writable: boolean })[];
  notice?: { kind: "ok" | "error"; text: string };
}> = ({ ctx, viewer, keys, notice }) => {
  const { t } = ctx.words;
  const f = ctx.fmt;
  return (
    <Layout ctx={ctx} title={t("admin_keys_title")} path="/admin/keys">
      {notice && <Notice kind={notice.kind}>{notice.text}</Notice>}
      <div class="scroll">
        <table>
          <ColumnHeads
            t={t}
            cols={[
              "col_name",
              "col_owner",
              "col_prefix",
              "col_expires",
              "col_last_used",
              "col_actions",
            ]}
          />
          <tbody>
            {keys.map((k) => (
              <tr>
                <th scope="row">{k.name}</th>
                <td>{k.owner}</td>
                <td class="mono">{k.prefix}…</td>
                <td>
                  <KeyStatus ctx={ctx} k={k} />
                </td>
                <td>{k.lastUsedAt ? f.ago(k.lastUsedAt, ctx.now) : t("never")}</td>
                <td>
                  {k.writable && !k.revokedAt && (
                    <RevokeKeyForm ctx={ctx} csrf={viewer.csrf} k={k} back="/admin/keys" />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Layout>
  );
};
