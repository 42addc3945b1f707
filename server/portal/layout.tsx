/** The frame of every portal page: language, navigation for the viewer's role, sign-out. */
import type { Child, FC } from "hono/jsx";
import type { PortalCtx } from "./context.ts";
import type { PortalKey } from "./i18n.ts";
import { type AdminPage, mayOpen } from "./page_access.ts";

const personal: [string, PortalKey][] = [
  ["/models", "nav_models"],
  ["/chat", "nav_chat"],
  ["/keys", "nav_keys"],
  ["/usage", "nav_usage"],
  ["/tools", "nav_tools"],
  ["/profile", "nav_profile"],
];
const admin: [AdminPage, string, PortalKey][] = [
  ["cluster", "/admin/cluster", "nav_cluster"],
  ["models", "/admin/models", "nav_admin_models"],
  ["people", "/admin/people", "nav_people"],
  ["tree", "/admin/tree", "nav_tree"],
  ["kb", "/admin/kb", "nav_kb"],
  ["mcp", "/admin/mcp", "nav_mcp"],
  ["guard", "/admin/guard", "nav_guard"],
  ["keys", "/admin/keys", "nav_admin_keys"],
  ["audit", "/admin/audit", "nav_audit"],
  ["settings", "/admin/settings", "nav_settings"],
];

export const Layout: FC<{ ctx: PortalCtx; title: string; path: string; children?: Child }> = (
  { ctx, title, path, children },
) => {
  const { t } = ctx.words;
  const v = ctx.viewer;
  const link = (href: string, key: PortalKey) => (
    <li>
      <a href={href} aria-current={path === href ? "page" : undefined}>{t(key)}</a>
    </li>
  );
  return (
    <html lang={ctx.words.locale}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · ${t("app_name")}`}</title>
        <link rel="stylesheet" href="/static/portal.css" />
      </head>
      <body>
        <a class="skip" href="#main">{t("skip_to_content")}</a>
        <header class="top">
          <a class="brand" href="/">{t("app_name")}</a>
          {v && (
            <nav aria-label={t("nav_label")}>
              <ul>{personal.map(([href, key]) => link(href, key))}</ul>
            </nav>
          )}
          {v && (
            <form method="post" action="/logout" class="signout">
              <input type="hidden" name="_csrf" value={v.csrf} />
              <span class="muted">
                {t("signed_in_as", { name: v.person.displayName ?? v.person.username })}
              </span>
              <button type="submit" class="secondary">{t("sign_out")}</button>
            </form>
          )}
        </header>
        {v && admin.some(([page]) => mayOpen(v.actor, page)) && (
          <nav class="admin" aria-label={t("nav_admin_label")}>
            <ul>
              {admin.filter(([page]) =>
                mayOpen(v.actor, page)
              ).map(([, href, key]) =>
                link(href, key)
              )}
            </ul>
          </nav>
        )}
        <main id="main" tabindex={-1}>
          <h1>{title}</h1>
          {children}
        </main>
        <footer class="muted">{t("footer_time", { time: ctx.fmt.dateTime(ctx.now) })}</footer>
      </body>
    </html>
  );
};

/** A notice at the top of a page: `ok` after a change, `error` when one was refused. */
export const Notice: FC<{ kind: "ok" | "error"; children?: Child }> = ({ kind, children }) => (
  <p class={`notice ${kind}`} role={kind === "error" ? "alert" : "status"}>{children}</p>
);

/** A column of a table head: a message key; `num` for a column of figures (aligned right). */
export type ColumnHead = PortalKey | { num: PortalKey } | false | undefined;

/** A table's head row, one `<th scope="col">` per column; a false column is left out. */
export const ColumnHeads: FC<{ t: (key: PortalKey) => string; cols: ColumnHead[] }> = (
  { t, cols },
) => (
  <thead>
    <tr>
      {cols.map((c) =>
        !c
          ? null
          : typeof c === "string"
          ? <th scope="col">{t(c)}</th>
          : <th scope="col" class="num">{t(c.num)}</th>
      )}
    </tr>
  </thead>
);
