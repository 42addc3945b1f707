/** The models page: each model the person may use, its description under its row. */
import type { FC } from "hono/jsx";
import type { PortalCtx } from "../context.ts";
import type { PortalKey } from "../i18n.ts";
import { ColumnHeads, Layout } from "../layout.tsx";
import type { ModelRow, ModelState } from "../model_rows.ts";

export const stateKey: Record<ModelState, PortalKey> = {
  ready: "state_ready",
  starting: "state_starting",
  on_demand: "state_on_demand",
  stopped: "state_stopped",
  failed: "state_failed",
};

export const ModelsPage: FC<{ ctx: PortalCtx; rows: ModelRow[] }> = ({ ctx, rows }) => {
  const { t } = ctx.words;
  const f = ctx.fmt;
  return (
    <Layout ctx={ctx} title={t("models_title")} path="/models">
      <p class="muted">{t("models_intro")}</p>
      {rows.length === 0 ? <p>{t("models_none")}</p> : (
        <div class="scroll">
          <table class="models">
            <ColumnHeads
              t={t}
              cols={[
                "col_model",
                "col_state",
                { num: "col_context" },
                { num: "col_price_prompt" },
                { num: "col_price_completion" },
              ]}
            />
            {rows.map((r) => (
              <tbody class="model">
                <tr>
                  <th scope="row">
                    <a href={`/chat?model=${encodeURIComponent(r.name)}`}>{r.name}</a>
                  </th>
                  <td>
                    <span class={`badge state-${r.state}`}>{t(stateKey[r.state])}</span>
                  </td>
                  <td class="num">
                    {r.context === null ? t("unknown") : t("tokens_unit", { n: f.int(r.context) })}
                  </td>
                  <td class="num">{f.price(r.promptPer1k)}</td>
                  <td class="num">{f.price(r.completionPer1k)}</td>
                </tr>
                {(r.description || r.simulated) && (
                  <tr class="desc">
                    <td colspan={5}>
                      {r.simulated && <strong class="sim">{t("simulated")}</strong>}
                      {r.description && <span>{r.description}</span>}
                    </td>
                  </tr>
                )}
              </tbody>
            ))}
          </table>
        </div>
      )}
    </Layout>
  );
};
