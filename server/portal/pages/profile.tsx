/** The profile: language, time zone, and the password for local accounts. */
import type { FC } from "hono/jsx";
import type { PortalCtx, Viewer } from "../context.ts";
import { Layout, Notice } from "../layout.tsx";

const zones = typeof Intl.supportedValuesOf === "function"
  ? Intl.supportedValuesOf("timeZone")
  : ["UTC", "Europe/Istanbul", "Europe/London"];

export const ProfilePage: FC<{
  ctx: PortalCtx;
  viewer: Viewer;
  oidcLabel: string;
  notice?: { kind: "ok" | "error"; text: string };
}> = ({ ctx, viewer, oidcLabel, notice }) => {
  const { t } = ctx.words;
  const p = viewer.person;
  const zone = viewer.prefs.timeZone ?? "UTC";
  return (
    <Layout ctx={ctx} title={t("profile_title")} path="/profile">
      {notice && <Notice kind={notice.kind}>{notice.text}</Notice>}
      <dl class="pairs">
        <dt>{t("col_user")}</dt>
        <dd>{p.username}</dd>
        {p.email && <dt>{t("col_email")}</dt>}
        {p.email && <dd>{p.email}</dd>}
      </dl>
      <form method="post" action="/profile" class="card grid">
        <input type="hidden" name="_csrf" value={viewer.csrf} />
        <div>
          <label for="pref-lang">{t("field_language")}</label>
          <select id="pref-lang" name="locale">
            <option value="" selected={viewer.prefs.locale === null}>{t("language_auto")}</option>
            <option value="en" lang="en" selected={viewer.prefs.locale === "en"}>English</option>
            <option value="tr" lang="tr" selected={viewer.prefs.locale === "tr"}>Türkçe</option>
          </select>
        </div>
        <div>
          <label for="pref-tz">{t("field_time_zone")}</label>
          <input id="pref-tz" name="time_zone" list="zones" value={zone} required />
          <datalist id="zones">
            {zones.map((z) => <option value={z} />)}
          </datalist>
        </div>
        <div class="end">
          <button type="submit">{t("save")}</button>
        </div>
      </form>
      <section class="card" aria-labelledby="pw-h">
        <h2 id="pw-h">{t("password_title")}</h2>
        {p.signIn === "local"
          ? (
            <form method="post" action="/profile/password" class="grid">
              <input type="hidden" name="_csrf" value={viewer.csrf} />
              <div>
                <label for="pw-current">{t("field_current_password")}</label>
                <input
                  id="pw-current"
                  name="current"
                  type="password"
                  autocomplete="current-password"
                  required
                />
              </div>
              <div>
                <label for="pw-new">{t("field_new_password")}</label>
                <input
                  id="pw-new"
                  name="password"
                  type="password"
                  autocomplete="new-password"
                  minlength={12}
                  required
                />
              </div>
              <div class="end">
                <button type="submit">{t("password_change")}</button>
              </div>
            </form>
          )
          : <p>{t("password_elsewhere", { provider: oidcLabel || "SSO" })}</p>}
      </section>
    </Layout>
  );
};
