/**
 * The chat page. The answer streams through /portal/chat (the session and its CSRF token, no API
 * key in the page); conversations stay in the browser (localStorage), listed beside the chat and
 * exported as a file. A system prompt, temperature and longest answer are set per conversation;
 * pictures go to models that take them. web/chat.js does the rest: it needs JavaScript, and says
 * so when it is off.
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
  "chat_copy",
  "chat_copied",
  "chat_copy_code",
  "chat_regenerate",
  "chat_edit",
  "chat_untitled",
  "chat_delete_named",
  "chat_open_named",
  "chat_pictures_count",
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
  const models = Object.fromEntries(
    rows.map((r) => [r.name, { state: r.state, vision: r.vision, description: r.description }]),
  );
  const config = { words, models, csrf: viewer.csrf, person: viewer.person.id };
  const first = rows.find((r) => r.name === pick) ?? rows[0];
  return (
    <Layout ctx={ctx} title={t("chat_title")} path="/chat">
      {rows.length === 0 ? <p>{t("chat_no_models")}</p> : (
        <div class="chat" id="chat">
          <noscript>
            <p class="notice error">{t("chat_needs_js")}</p>
          </noscript>
          <aside class="chat-side" aria-labelledby="chat-convos-h">
            <h2 id="chat-convos-h">{t("chat_conversations")}</h2>
            <div class="row">
              <button type="button" id="chat-new" class="secondary">{t("chat_new")}</button>
              <button type="button" id="chat-export" class="secondary">{t("chat_export")}</button>
            </div>
            <ul id="chat-list" class="plain chat-list"></ul>
            <p class="muted small">{t("chat_kept_here")}</p>
          </aside>
          <div class="chat-main">
            <form id="chat-form" class="chat-form">
              <div class="row">
                <label for="chat-model">{t("chat_model")}</label>
                <select id="chat-model" name="model">
                  {rows.map((r) => (
                    <option value={r.name} selected={r.name === first?.name}>{r.name}</option>
                  ))}
                </select>
              </div>
              <p id="chat-model-desc" class="muted small data">{first?.description ?? ""}</p>
              <details id="chat-settings" class="chat-settings">
                <summary>{t("chat_settings")}</summary>
                <label for="chat-system">{t("chat_system")}</label>
                <textarea id="chat-system" rows={2} aria-describedby="chat-system-hint"></textarea>
                <p id="chat-system-hint" class="hint">{t("chat_system_hint")}</p>
                <div class="grid">
                  <div>
                    <label for="chat-temperature">{t("chat_temperature")}</label>
                    <input id="chat-temperature" type="number" min="0" max="2" step="0.1" />
                  </div>
                  <div>
                    <label for="chat-max-tokens">{t("chat_max_tokens")}</label>
                    <input id="chat-max-tokens" type="number" min="1" step="1" />
                  </div>
                </div>
                <p class="hint">{t("chat_settings_hint")}</p>
              </details>
              <div id="chat-log" class="chat-log" aria-live="polite"></div>
              <p id="chat-status" class="muted" role="status"></p>
              <label for="chat-input">{t("chat_message")}</label>
              <textarea id="chat-input" name="message" rows={4} required></textarea>
              <div id="chat-pictures" class="row" hidden>
                <label for="chat-image">{t("chat_pictures")}</label>
                <input id="chat-image" type="file" accept="image/*" multiple />
                <span id="chat-image-count" class="small muted"></span>
              </div>
              <div class="row">
                <button type="submit" id="chat-send">{t("chat_send")}</button>
                <button type="button" id="chat-stop" class="secondary" disabled>
                  {t("chat_stop")}
                </button>
                <button type="button" id="chat-clear" class="secondary">{t("chat_clear")}</button>
              </div>
            </form>
          </div>
          <script type="application/json" id="chat-config">{raw(scriptJson(config))}</script>
          <script src="/static/markdown.js" defer></script>
          <script src="/static/chat.js" defer></script>
        </div>
      )}
    </Layout>
  );
};
