/**
 * Guardrail policies: each one the viewer may read, in full as JSON (the admin API's own shape,
 * so what is changed here is what `ctl guard set` takes), with Save and Remove for those who may
 * change its level (the API decides and audits, before and after); a form for a new one; and a
 * tester box: a text in, what the policy does to it out, from the same route as `ctl guard test`.
 */
import type { FC } from "hono/jsx";
import type { PortalCtx, Viewer } from "../context.ts";
import { ColumnHeads, Layout, Notice } from "../layout.tsx";

export interface GuardRow {
  name: string;
  level: string;
  applyTo: string;
  rules: number;
  /** The policy as PUT takes it (scope, apply_to, rules...), pretty-printed. */
  json: string;
}

export interface TryResult {
  policy: string;
  blocked: string | null;
  text: string | null;
  verdicts: { rule: string; action: string; silent?: boolean; reason?: string }[];
  latencyUs: number;
}

const policyJson = (ctx: PortalCtx, viewer: Viewer, name: string, json: string, isNew = false) => {
  const { t } = ctx.words;
  return (
    <form method="post" action="/admin/guard" class="stack">
      <input type="hidden" name="_csrf" value={viewer.csrf} />
      {isNew
        ? (
          <label>
            {t("guard_name")}
            <input name="name" required pattern="[a-z0-9][a-z0-9_.\-]{0,63}" />
          </label>
        )
        : <input type="hidden" name="name" value={name} />}
      <label>
        {t("guard_policy_json")}
        <textarea name="policy" rows={isNew ? 8 : 10} class="mono" spellcheck={false}>
          {json}
        </textarea>
      </label>
      <button type="submit">{t("guard_save")}</button>
    </form>
  );
};

export const GuardPage: FC<{
  ctx: PortalCtx;
  viewer: Viewer;
  rows: GuardRow[];
  tried?: TryResult | undefined;
  tryText?: string | undefined;
  notice?: { kind: "ok" | "error"; text: string } | undefined;
}> = ({ ctx, viewer, rows, tried, tryText, notice }) => {
  const { t } = ctx.words;
  const example = JSON.stringify(
    {
      scope: { kind: "global", id: "global" },
      apply_to: "input",
      rules: [{ name: "personal", kind: "pii", action: "redact" }],
    },
    null,
    2,
  );
  return (
    <Layout ctx={ctx} title={t("guard_title")} path="/admin/guard">
      {notice && <Notice kind={notice.kind}>{notice.text}</Notice>}
      <p class="muted small">{t("guard_help")}</p>
      {rows.length === 0 ? <p>{t("guard_none")}</p> : (
        <div class="scroll">
          <table>
            <ColumnHeads
              t={t}
              cols={["col_name", "col_guard_level", "col_guard_applies", "col_guard_rules"]}
            />
            <tbody>
              {rows.map((r) => (
                <tr>
                  <th scope="row">{r.name}</th>
                  <td>{r.level}</td>
                  <td>{r.applyTo}</td>
                  <td>{r.rules}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {rows.length > 0 && (
        <section aria-labelledby="guard-try">
          <h2 id="guard-try">{t("guard_test_title")}</h2>
          <form method="post" action="/admin/guard/test" class="stack">
            <input type="hidden" name="_csrf" value={viewer.csrf} />
            <label>
              {t("guard_test_policy")}
              <select name="name">
                {rows.map((r) => (
                  <option value={r.name} selected={tried?.policy === r.name}>{r.name}</option>
                ))}
              </select>
            </label>
            <label>
              {t("guard_test_direction")}
              <select name="direction">
                <option value="input">{t("guard_dir_input")}</option>
                <option value="output">{t("guard_dir_output")}</option>
              </select>
            </label>
            <label>
              {t("guard_test_text")}
              <textarea name="text" rows={4} required>{tryText ?? ""}</textarea>
            </label>
            <button type="submit">{t("guard_test_run")}</button>
          </form>
          {tried && (
            <div class="result" role="status">
              <p>
                {tried.blocked
                  ? t("guard_result_blocked", { rule: tried.blocked })
                  : t("guard_result_passes")}
              </p>
              {tried.text !== null && <pre class="mono">{tried.text}</pre>}
              <ul>
                {tried.verdicts.map((v) => (
                  <li>
                    <span class="mono">{v.rule}</span>: {v.action}
                    {v.silent ? ` (${t("guard_silent")})` : ""}
                    {v.reason ? ` (${v.reason})` : ""}
                  </li>
                ))}
              </ul>
              <p class="muted small">{t("guard_result_time", { us: tried.latencyUs })}</p>
            </div>
          )}
        </section>
      )}
      {rows.map((r) => (
        <section aria-label={r.name}>
          <h2>{r.name}</h2>
          {policyJson(ctx, viewer, r.name, r.json)}
          <form method="post" action={`/admin/guard/${r.name}/delete`}>
            <input type="hidden" name="_csrf" value={viewer.csrf} />
            <button type="submit" class="secondary">{t("guard_delete")}</button>
          </form>
        </section>
      ))}
      <section aria-labelledby="guard-new">
        <h2 id="guard-new">{t("guard_new")}</h2>
        {policyJson(ctx, viewer, "", example, true)}
      </section>
    </Layout>
  );
};
