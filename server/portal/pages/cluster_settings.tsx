/**
 * The cluster's settings (GET /api/v1/settings) on the settings page: each with its value, its
 * default and whether a change applies now or at the next restart; a form changes one
 * (PUT /api/v1/settings {key: value}).
 */
import type { FC } from "hono/jsx";
import type { SettingView } from "../../settings/cluster_settings.ts";
import type { PortalCtx } from "../context.ts";
import { ColumnHeads } from "../layout.tsx";
import { settingDescriptionsTr } from "../../../locales/settings_tr.ts";

/** A setting's description in the viewer's language (English is the setting's own). */
export function settingDescription(ctx: PortalCtx, s: SettingView): string {
  return ctx.words.locale === "tr" ? settingDescriptionsTr[s.key] ?? s.description : s.description;
}

/** A value as the form shows it and takes it back: JSON, except a plain string stays plain. */
export const settingText = (v: unknown): string =>
  typeof v === "string" ? v : v === undefined ? "" : JSON.stringify(v);

export const ClusterSettingsSection: FC<
  { ctx: PortalCtx; csrf: string; settings: SettingView[]; canWrite: boolean }
> = ({ ctx, csrf, settings, canWrite }) => {
  const { t } = ctx.words;
  return (
    <section aria-labelledby="s-cluster">
      <h2 id="s-cluster">{t("settings_cluster")}</h2>
      <div class="scroll">
        <table>
          <ColumnHeads t={t} cols={["col_setting", "col_value", "col_default", "col_applies"]} />
          <tbody>
            {settings.map((s) => (
              <tr>
                <th scope="row">
                  <span class="mono">{s.key}</span>
                  <div class="small muted">{settingDescription(ctx, s)}</div>
                </th>
                <td class="mono">
                  {settingText(s.value)}
                  {s.source === "flag/env" && (
                    <div class="small muted">{t("setting_overridden", { env: s.env })}</div>
                  )}
                </td>
                <td class="mono">{settingText(s.default)}</td>
                <td>{t(s.live ? "setting_live" : "setting_restart")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {canWrite && (
        <form method="post" action="/admin/settings/cluster">
          <input type="hidden" name="_csrf" value={csrf} />
          <label>
            {t("col_setting")}{" "}
            <select name="key" class="mono">
              {settings.map((s) => <option value={s.key}>{s.key}</option>)}
            </select>
          </label>{" "}
          <label>
            {t("col_value")} <input type="text" name="value" required />
          </label>{" "}
          <button type="submit">{t("save")}</button>
        </form>
      )}
    </section>
  );
};
