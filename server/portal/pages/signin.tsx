/** What `/` shows a signed-out visitor: the local form and, when configured, the provider's button. */
import type { FC } from "hono/jsx";
import type { PortalCtx } from "../context.ts";
import { Layout, Notice } from "../layout.tsx";

export const SignInPage: FC<{
  ctx: PortalCtx;
  loginCsrf: string;
  oidcName: string | null;
  error?: string;
  next?: string;
}> = ({ ctx, loginCsrf, oidcName, error, next }) => {
  const { t } = ctx.words;
  return (
    <Layout ctx={ctx} title={t("sign_in_title")} path="/">
      <p class="muted">{t("sign_in_intro")}</p>
      {error && <Notice kind="error">{error}</Notice>}
      <form method="post" action="/login" class="card narrow">
        <input type="hidden" name="_csrf" value={loginCsrf} />
        {next && <input type="hidden" name="next" value={next} />}
        <label for="login">{t("field_login")}</label>
        <input id="login" name="login" autocomplete="username" required autofocus />
        <label for="password">{t("field_password")}</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
        />
        <button type="submit">{t("sign_in_button")}</button>
      </form>
      {oidcName && (
        <div class="card narrow">
          <p class="muted center">{t("or")}</p>
          <a class="button secondary" href="/auth/oidc/start">
            {t("sign_in_with", { provider: oidcName })}
          </a>
        </div>
      )}
    </Layout>
  );
};

export const ErrorPage: FC<{ ctx: PortalCtx; title: string; message: string }> = (
  { ctx, title, message },
) => (
  <Layout ctx={ctx} title={title} path="">
    <Notice kind="error">{message}</Notice>
    <p>
      <a href="/">{ctx.words.t("back_home")}</a>
    </p>
  </Layout>
);
