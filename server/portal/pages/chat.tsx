/**
 * The chat page. The answer streams through /portal/chat (the session and its CSRF token, no API
 * key in the page); the conversation stays in the browser (localStorage). web/chat.js does the
 * rest: it needs JavaScript, and says so when it is off.
 */
import type { FC } from "hono/jsx";
import { raw } from "hono/html";
import type { PortalCtx, Viewer } from "../context.ts";
import type { PortalKey } from "../i18n.ts";
import { Layout } from "../layout.tsx";
import type { ModelRow } from "../model_rows.ts";

const scriptWords: PortalKey[] = [
  "chat_you",
  "chat_assistant",
  "chat_waiting",
  "chat_starting",
  "chat_fetching",
  "chat_checking",
  "chat_stopped",
  "chat_stats",
];

/** JSON for a <script type="application/json">: `<` escaped so no text can close the element. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c");
}

export const ChatPage: FC<{ ctx: PortalCtx; viewer: Viewer; rows: ModelRow[]; pick?: string }> = (
  { ctx, viewer, rows, pick },
) => {
  const { t } = ctx.words;
  const words = Object.fromEntries(scriptWords.map((k) => [k, t(k)]));
  const states = Object.fromEntries(rows.map((r) => [r.name, r.state]));
  const config = { words, states, csrf: viewer.csrf, person: viewer.person.id };
  return (
    <Layout ctx={ctx} title={t("chat_title")} path="/chat">
      {rows.length === 0 ? <p>{t("chat_no_models")}</p> : (
        <div class="chat" id="chat">
          <noscript>
            <p class="notice error">{t("chat_needs_js")}</p>
          </noscript>
          <p class="muted">{t("chat_kept_here")}</p>
          <div id="chat-log" class="chat-log" aria-live="polite"></div>
          <p id="chat-status" class="muted" role="status"></p>
          <form id="chat-form" class="chat-form">
            <div class="row">
              <label for="chat-model">{t("chat_model")}</label>
              <select id="chat-model" name="model">
                {rows.map((r) => <option value={r.name} selected={r.name === pick}>{r.name}
                </option>)}
              </select>
            </div>
            <label for="chat-input">{t("chat_message")}</label>
            <textarea id="chat-input" name="message" rows={4} required></textarea>
            <div class="row">
              <button type="submit" id="chat-send">{t("chat_send")}</button>
              <button type="button" id="chat-stop" class="secondary" disabled>
                {t("chat_stop")}
              </button>
              <button type="button" id="chat-clear" class="secondary">{t("chat_clear")}</button>
            </div>
          </form>
          <script type="application/json" id="chat-config">{raw(scriptJson(config))}</script>
          <script src="/static/markdown.js" defer></script>
          <script src="/static/chat.js" defer></script>
        </div>
      )}
    </Layout>
  );
};
