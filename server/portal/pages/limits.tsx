/**
 * One level's limits: for each limit the level's own value (the form), what it inherits from the
 * levels above, and what is in force here, each naming the level it comes from. Levels below that
 * set a tighter value of their own are listed, since for them the page's value is not the one that
 * holds (a key's own 60 requests a minute stays under a project's 600).
 */
import type { FC } from "hono/jsx";
import type { Bound, Effective, LimitSet, NumericLimit } from "../../accounting/limits.ts";
import type { PortalCtx, Viewer } from "../context.ts";
import { ColumnHeads, Layout, Notice } from "../layout.tsx";

const dayMs = 86_400_000;

/** A level below this one that sets a value of its own lower than the one in force here. */
export interface TighterBelow {
  level: string;
  limit: NumericLimit;
  value: number;
}

export interface LimitsView {
  kind: string;
  id: string;
  level: string;
  own: LimitSet;
  /** From the levels above alone (what an empty field means). */
  inherited: Effective;
  /** Above and this level together: what a request at this level is held to. */
  effective: Effective;
  /** Names a scope for the "from" columns. */
  levelOf: (scope: Bound["scope"]) => string;
  below: TighterBelow[];
  canWrite: boolean;
}

interface Row {
  field: string;
  limit: NumericLimit;
  label: string;
  /** As typed in the form (days, currency units). */
  toField: (n: number) => string;
  /** As read on the page. */
  shown: (n: number) => string;
  step?: string;
}

function rows(ctx: PortalCtx): Row[] {
  const { t } = ctx.words;
  const f = ctx.fmt;
  const plain = (n: number) => String(n);
  const money = (n: number) => String(n / 1_000_000);
  const days = (n: number) => String(Math.round(n / dayMs));
  return [
    { field: "rpm", limit: "rpm", label: t("limit_rpm"), toField: plain, shown: f.int.bind(f) },
    { field: "tpm", limit: "tpm", label: t("limit_tpm"), toField: plain, shown: f.int.bind(f) },
    {
      field: "max_parallel",
      limit: "maxParallel",
      label: t("limit_max_parallel"),
      toField: plain,
      shown: f.int.bind(f),
    },
    {
      field: "budget_day",
      limit: "budgetDayMicros",
      label: t("limit_budget_day", { currency: f.currency }),
      toField: money,
      shown: f.money.bind(f),
      step: "0.000001",
    },
    {
      field: "budget_month",
      limit: "budgetMonthMicros",
      label: t("limit_budget_month", { currency: f.currency }),
      toField: money,
      shown: f.money.bind(f),
      step: "0.000001",
    },
    {
      field: "key_days",
      limit: "maxKeyTtlMs",
      label: t("limit_key_days"),
      toField: days,
      shown: (n) => t("limit_days", { n: f.int(Math.round(n / dayMs)) }),
    },
  ];
}

const From: FC<
  {
    ctx: PortalCtx;
    bound: Bound | null;
    show: (n: number) => string;
    of: (s: Bound["scope"]) => string;
  }
> = (
  { ctx, bound, show, of },
) =>
  bound
    ? (
      <span>
        <strong>{show(bound.value)}</strong>{" "}
        <span class="small muted">{ctx.words.t("limit_from", { level: of(bound.scope) })}</span>
      </span>
    )
    : <span class="muted">{ctx.words.t("limit_none")}</span>;

const Lists: FC<{ ctx: PortalCtx; lists: Effective["models"]; of: (s: Bound["scope"]) => string }> =
  (
    { ctx, lists, of },
  ) =>
    lists.length === 0
      ? <span class="muted">{ctx.words.t("limit_any_model")}</span>
      : (
        <ul class="plain">
          {lists.map((l) => (
            <li>
              <span class="mono">{l.patterns.join(", ")}</span>{" "}
              <span class="small muted">{ctx.words.t("limit_from", { level: of(l.scope) })}</span>
            </li>
          ))}
        </ul>
      );

export const LimitsPage: FC<{
  ctx: PortalCtx;
  viewer: Viewer;
  view: LimitsView;
  notice?: { kind: "ok" | "error"; text: string };
}> = ({ ctx, viewer, view, notice }) => {
  const { t } = ctx.words;
  const form = "limits-form";
  const input = (r: Row) => (
    <input
      id={`l-${r.field}`}
      name={r.field}
      form={form}
      type="number"
      min="0"
      step={r.step ?? "1"}
      value={view.own[r.limit] === null ? "" : r.toField(view.own[r.limit]!)}
      disabled={!view.canWrite}
      aria-describedby="l-hint"
    />
  );
  const rowKey = new Map<NumericLimit, Row>(rows(ctx).map((r) => [r.limit, r]));
  return (
    <Layout ctx={ctx} title={t("limits_for", { level: view.level })} path="/admin/tree">
      {notice && <Notice kind={notice.kind}>{notice.text}</Notice>}
      <p id="l-hint" class="hint">{t("limit_inherit")}</p>
      <form method="post" action={`/admin/limits/${view.kind}/${view.id}`} id={form}>
        <input type="hidden" name="_csrf" value={viewer.csrf} />
      </form>
      <div class="scroll">
        <table class="limits">
          <ColumnHeads
            t={t}
            cols={["col_limit", "col_limit_own", "col_limit_inherited", "col_limit_effective"]}
          />
          <tbody>
            {rows(ctx).map((r) => (
              <tr data-limit={r.field}>
                <th scope="row">
                  <label for={`l-${r.field}`}>{r.label}</label>
                </th>
                <td>{input(r)}</td>
                <td class="inherited">
                  <From
                    ctx={ctx}
                    bound={view.inherited[r.limit]}
                    show={r.shown}
                    of={view.levelOf}
                  />
                </td>
                <td class="effective">
                  <From
                    ctx={ctx}
                    bound={view.effective[r.limit]}
                    show={r.shown}
                    of={view.levelOf}
                  />
                </td>
              </tr>
            ))}
            <tr data-limit="models">
              <th scope="row">
                <label for="l-models">{t("limit_models")}</label>
              </th>
              <td>
                <input
                  id="l-models"
                  name="models"
                  form={form}
                  value={view.own.models?.join(", ") ?? ""}
                  disabled={!view.canWrite}
                  aria-describedby="l-hint"
                />
              </td>
              <td class="inherited">
                <Lists ctx={ctx} lists={view.inherited.models} of={view.levelOf} />
              </td>
              <td class="effective">
                <Lists ctx={ctx} lists={view.effective.models} of={view.levelOf} />
              </td>
            </tr>
          </tbody>
        </table>
      </div>
      {view.canWrite && <button type="submit" form={form}>{t("limits_save")}</button>}
      {view.below.length > 0 && (
        <section aria-labelledby="below-h" class="card">
          <h2 id="below-h">{t("limits_below_title")}</h2>
          <p class="muted small">{t("limits_below_intro")}</p>
          <ul id="limits-below">
            {view.below.map((b) => {
              const r = rowKey.get(b.limit);
              return (
                <li>
                  {t("limits_below_line", {
                    level: b.level,
                    limit: r?.label ?? b.limit,
                    value: r ? r.shown(b.value) : String(b.value),
                  })}
                </li>
              );
            })}
          </ul>
        </section>
      )}
    </Layout>
  );
};
