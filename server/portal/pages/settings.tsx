/** Settings: sign-in, prices and the cluster's live settings. */
import type { FC } from "hono/jsx";
import type { Price } from "../../accounting/price.ts";
import { priceDecimal } from "../../accounting/money.ts";
import type { OidcStatus } from "../../auth/oidc.ts";
import type { PortalCtx, Viewer } from "../context.ts";
import { Layout, Notice } from "../layout.tsx";
import type { SettingView } from "../../settings/cluster_settings.ts";
import { ClusterSettingsSection } from "./cluster_settings.tsx";
import type { DirectoryStatus } from "../../auth/ldap/directory_sign_in.ts";
import type { DirectoryTrial } from "../../auth/ldap/try_directory.ts";
import { DirectoryState, DirectoryTest } from "./directory_section.tsx";

export const SettingsPage: FC<{
  ctx: PortalCtx;
  viewer: Viewer;
  oidc: OidcStatus;
  ldap: DirectoryStatus;
  /** The directory test's answer, on the page that ran it. */
  ldapTrial?: DirectoryTrial;
  signupOpen: boolean;
  defaultPrice: Price;
  prices: { model: string; price: Price }[];
  canWrite: boolean;
  /** The cluster's settings; null when this server keeps none. */
  cluster: SettingView[] | null;
  notice?: { kind: "ok" | "error"; text: string };
}> = (
  {
    ctx,
    viewer,
    oidc,
    ldap,
    ldapTrial,
    signupOpen,
    defaultPrice,
    prices,
    canWrite,
    cluster,
    notice,
  },
) => {
  const { t } = ctx.words;
  const f = ctx.fmt;
  const onOff = (b: boolean) => t(b ? "on" : "off");
  // Edited as the page shows prices: the currency per 1M tokens.
  const units = (m: number) => priceDecimal(m);
  return (
    <Layout ctx={ctx} title={t("settings_title")} path="/admin/settings">
      {notice && <Notice kind={notice.kind}>{notice.text}</Notice>}
      <section aria-labelledby="s-signin">
        <h2 id="s-signin">{t("settings_sign_in")}</h2>
        <dl class="pairs">
          <dt>{t("settings_local")}</dt>
          <dd>{onOff(true)}</dd>
          <dt>{t("settings_oidc")}</dt>
          <dd>
            {oidc.configured ? `${onOff(oidc.ok)} (${oidc.label})` : onOff(false)}
            {oidc.reason && oidc.configured ? ` — ${oidc.reason}` : ""}
          </dd>
          <DirectoryState ctx={ctx} ldap={ldap} />
          <dt>{t("settings_signup")}</dt>
          <dd>{onOff(signupOpen)}</dd>
        </dl>
        {canWrite && ldap.configured && (
          <DirectoryTest ctx={ctx} csrf={viewer.csrf} trial={ldapTrial} />
        )}
      </section>
      <section aria-labelledby="s-prices">
        <h2 id="s-prices">{t("settings_prices")}</h2>
        <p class="muted">{t("settings_live")}</p>
        <p>
          {`${t("settings_default_price")}: ${f.price(defaultPrice.promptPer1k)} / ${
            f.price(defaultPrice.completionPer1k)
          }`}
        </p>
        {prices.map(({ model, price }) => (
          <form
            method="post"
            action={`/admin/prices/${encodeURIComponent(model)}`}
            class="card grid"
            aria-label={t("price_for", { model })}
          >
            <h3 class="full">{model}</h3>
            <input type="hidden" name="_csrf" value={viewer.csrf} />
            {([
              ["prompt", "col_price_prompt", price.promptPer1k],
              ["completion", "col_price_completion", price.completionPer1k],
              ["cached", "col_price_cached", price.cachedPer1k],
            ] as const).map(([name, label, value]) => (
              <div>
                <label for={`p-${model}-${name}`}>{t(label)}</label>
                <input
                  id={`p-${model}-${name}`}
                  name={name}
                  type="number"
                  min="0"
                  step="0.001"
                  value={units(value)}
                  disabled={!canWrite}
                />
              </div>
            ))}
            {canWrite && (
              <div class="end">
                <button type="submit">{t("price_set")}</button>
              </div>
            )}
          </form>
        ))}
      </section>
      {cluster && (
        <ClusterSettingsSection
          ctx={ctx}
          csrf={viewer.csrf}
          settings={cluster}
          canWrite={canWrite}
        />
      )}
    </Layout>
  );
};
