/**
 * The keys page: the person's keys, a form to make one (its secret shown once, in the answer to
 * that form only), revoke, and "Connect your editor" snippets.
 */
import type { FC } from "hono/jsx";
import type { ApiKeyInfo } from "../../keys/keys.ts";
import type { Project } from "../../tenancy/tenancy.ts";
import type { PortalCtx, Viewer } from "../context.ts";
import { CardForm } from "../card_form.tsx";
import { ColumnHeads, Layout, Notice } from "../layout.tsx";
import { editorSnippets } from "../snippets.ts";

export interface KeysData {
  keys: ApiKeyInfo[];
  projects: Project[];
  /** Staff may make a key outside any project. */
  projectOptional: boolean;
  maxDays: number | null;
  model: string | null;
  created?: { name: string; key: string };
  notice?: { kind: "ok" | "error"; text: string };
}

export const KeyStatus: FC<{ ctx: PortalCtx; k: ApiKeyInfo }> = ({ ctx, k }) => {
  const { t } = ctx.words;
  if (k.revokedAt) return <span class="badge state-stopped">{t("revoked")}</span>;
  if (k.expiresAt && k.expiresAt <= ctx.now) {
    return <span class="badge state-failed">{t("expired")}</span>;
  }
  return <span>{k.expiresAt ? ctx.fmt.day(k.expiresAt) : t("no_expiry")}</span>;
};

/** The way to revoke `k`: a link to the confirm step; `back` is where the answer then goes. */
export const RevokeKeyForm: FC<{ ctx: PortalCtx; csrf: string; k: ApiKeyInfo; back?: string }> = (
  { ctx, k, back },
) => {
  const { t } = ctx.words;
  const q = back ? `?back=${encodeURIComponent(back)}` : "";
  return (
    <a
      href={`/keys/${k.id}/revoke${q}`}
      class="button danger"
      aria-label={t("revoke_named", { name: k.name })}
    >
      {t("revoke")}
    </a>
  );
};

/** The confirm step before a key is revoked. */
export const RevokeKeyPage: FC<{ ctx: PortalCtx; csrf: string; k: ApiKeyInfo; back: string }> = (
  { ctx, csrf, k, back },
) => {
  const { t } = ctx.words;
  return (
    <Layout ctx={ctx} title={t("revoke_title", { name: k.name })} path={back}>
      <p>{t("revoke_confirm")}</p>
      <form method="post" action={`/keys/${k.id}/revoke`} class="row">
        <input type="hidden" name="_csrf" value={csrf} />
        <input type="hidden" name="back" value={back} />
        <button type="submit" class="danger" id="revoke-yes">{t("revoke_yes")}</button>
        <a href={back}>{t("cancel")}</a>
      </form>
    </Layout>
  );
};

export const CopyField: FC<
  { id: string; label: string; value: string; copy: string; copied: string }
> = ({ id, label, value, copy, copied }) => (
  <div class="copy-field">
    <label for={id}>{label}</label>
    <div class="row">
      <input id={id} value={value} readonly class="mono" />
      <button type="button" class="secondary" data-copy={id} data-copied={copied}>
        {copy}
      </button>
    </div>
  </div>
);

export const KeysPage: FC<{ ctx: PortalCtx; viewer: Viewer; data: KeysData }> = (
  { ctx, viewer, data },
) => {
  const { t } = ctx.words;
  const f = ctx.fmt;
  const model = data.model ?? "demo";
  const snippets = editorSnippets(ctx.origin, model, data.created?.key ?? t("connect_key_here"));
  return (
    <Layout ctx={ctx} title={t("keys_title")} path="/keys">
      <p class="muted">{t("keys_intro")}</p>
      {data.notice && <Notice kind={data.notice.kind}>{data.notice.text}</Notice>}
      {data.created && (
        <section class="card created" aria-labelledby="created-h">
          <h2 id="created-h">{t("key_created", { name: data.created.name })}</h2>
          <CopyField
            id="new-key"
            label={t("key_field")}
            value={data.created.key}
            copy={t("copy")}
            copied={t("copied")}
          />
        </section>
      )}
      {data.keys.length === 0 ? <p>{t("keys_none")}</p> : (
        <div class="scroll">
          <table>
            <ColumnHeads
              t={t}
              cols={[
                "col_name",
                "col_prefix",
                "col_project",
                "col_created",
                "col_expires",
                "col_last_used",
                "col_actions",
              ]}
            />
            <tbody>
              {data.keys.map((k) => (
                <tr>
                  <th scope="row">{k.name}</th>
                  <td class="mono">{k.prefix}…</td>
                  <td>{data.projects.find((p) => p.id === k.projectId)?.name ?? ""}</td>
                  <td>{f.day(k.createdAt)}</td>
                  <td>
                    <KeyStatus ctx={ctx} k={k} />
                  </td>
                  <td>{k.lastUsedAt ? f.ago(k.lastUsedAt, ctx.now) : t("never")}</td>
                  <td>
                    {!k.revokedAt && <RevokeKeyForm ctx={ctx} csrf={viewer.csrf} k={k} />}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <CardForm id="new-key" title={t("key_new")} action="/keys" csrf={viewer.csrf}>
        <div>
          <label for="key-name">{t("field_key_name")}</label>
          <input id="key-name" name="name" required maxlength={100} />
        </div>
        <div>
          <label for="key-project">{t("field_project")}</label>
          <select id="key-project" name="project_id" required={!data.projectOptional}>
            {data.projectOptional && <option value="">{t("no_project")}</option>}
            {data.projects.map((p) => <option value={p.id}>{p.name}</option>)}
          </select>
        </div>
        <div>
          <label for="key-days">{t("field_expires_days")}</label>
          <input
            id="key-days"
            name="expires_days"
            type="number"
            min={1}
            max={data.maxDays ?? undefined}
            value={data.maxDays ? String(Math.min(30, data.maxDays)) : ""}
            required={data.maxDays !== null}
            aria-describedby="key-days-hint"
          />
          <p id="key-days-hint" class="hint">
            {data.maxDays ? t("expires_hint", { days: data.maxDays }) : t("expires_hint_free")}
          </p>
        </div>
        <div class="end">
          <button type="submit">{t("key_create")}</button>
        </div>
      </CardForm>
      <section aria-labelledby="connect-h">
        <h2 id="connect-h">{t("connect_title")}</h2>
        <p>{t("connect_intro", { url: ctx.origin, model })}</p>
        {snippets.map((s, i) => (
          <div class="snippet">
            <div class="row spread">
              <h3 id={`snip-h-${i}`}>{t(s.title)}</h3>
              <button
                type="button"
                class="secondary"
                data-copy={`snip-${i}`}
                data-copied={t("copied")}
                aria-describedby={`snip-h-${i}`}
              >
                {t("copy")}
              </button>
            </div>
            <pre
              id={`snip-${i}`}
              tabindex={0}
              aria-labelledby={`snip-h-${i}`}
            ><code>{s.text}</code></pre>
          </div>
        ))}
        <h3>{t("connect_cline")}</h3>
        <dl class="pairs">
          <dt>{t("cline_base_url")}</dt>
          <dd class="mono">{`${ctx.origin}/v1`}</dd>
          <dt>{t("cline_api_key")}</dt>
          <dd class="mono">{data.created?.key ?? t("connect_key_here")}</dd>
          <dt>{t("cline_model")}</dt>
          <dd class="mono">{model}</dd>
        </dl>
      </section>
      <script src="/static/copy.js" defer></script>
    </Layout>
  );
};
