/** The settings page's directory part: its state, the last sync, and the test that tries it. */
import type { FC } from "hono/jsx";
import type { DirectoryStatus } from "../../auth/ldap/directory_sign_in.ts";
import type { DirectoryTrial } from "../../auth/ldap/try_directory.ts";
import type { PortalCtx } from "../context.ts";

export const DirectoryState: FC<{ ctx: PortalCtx; ldap: DirectoryStatus }> = ({ ctx, ldap }) => {
  const { t } = ctx.words;
  const onOff = (b: boolean) => t(b ? "on" : "off");
  const sync = ldap.last_sync;
  return (
    <>
      <dt>{t("settings_ldap")}</dt>
      <dd id="ldap-state">
        {ldap.configured ? `${onOff(ldap.ok)} (${ldap.label})` : onOff(false)}
        {ldap.reason && ldap.configured ? ` — ${ldap.reason}` : ""}
      </dd>
      {ldap.configured && ldap.server && (
        <>
          <dt>{t("settings_ldap_server")}</dt>
          <dd>{`${ldap.server}${ldap.flavor ? ` (${ldap.flavor})` : ""}`}</dd>
        </>
      )}
      {ldap.configured && (
        <>
          <dt>{t("settings_ldap_sync")}</dt>
          <dd>
            {!sync
              ? t("ldap_sync_never")
              : sync.refused
              ? t("ldap_sync_refused", { reason: sync.refused })
              : t("ldap_sync_applied", {
                suspended: sync.suspended,
                reinstated: sync.reinstated,
                updated: sync.updated,
              })}
          </dd>
        </>
      )}
    </>
  );
};

export const DirectoryTest: FC<{
  ctx: PortalCtx;
  csrf: string;
  trial?: DirectoryTrial | undefined;
}> = ({ ctx, csrf, trial }) => {
  const { t } = ctx.words;
  const yesNo = (b: boolean) => t(b ? "on" : "off");
  return (
    <form
      method="post"
      action="/admin/settings/ldap-test"
      class="card grid"
      aria-labelledby="ldap-test-h"
    >
      <h3 id="ldap-test-h" class="full">{t("ldap_test")}</h3>
      <p class="muted full">{t("ldap_test_note")}</p>
      <input type="hidden" name="_csrf" value={csrf} />
      <div>
        <label for="ldap-test-password">{t("ldap_test_password")}</label>
        <input id="ldap-test-password" name="bind_password" type="password" autocomplete="off" />
      </div>
      <div class="end">
        <button type="submit">{t("ldap_test")}</button>
      </div>
      {trial && (
        <div class="full" id="ldap-test-result" role="status">
          <p>
            {trial.ok ? t("ldap_test_ok") : t("ldap_test_failed", { reason: trial.error ?? "" })}
          </p>
          <ul>
            {trial.servers.map((s) => (
              <li>
                {t("ldap_server_state", {
                  url: s.url,
                  reached: yesNo(s.reached),
                  secured: yesNo(s.secured),
                  bound: yesNo(s.bound),
                })}
              </li>
            ))}
            {trial.people !== null && <li>{t("ldap_people", { n: trial.people })}</li>}
            {Object.entries(trial.groups).map(([group, n]) => (
              <li>{t("ldap_group", { group, n })}</li>
            ))}
          </ul>
        </div>
      )}
    </form>
  );
};
