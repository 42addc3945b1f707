/** The usage page: 30 days as SVG charts, by model and by key, budgets above the person, CSV. */
import type { FC } from "hono/jsx";
import type { Scope } from "../../tenancy/tenancy.ts";
import type { PortalDeps } from "../portal_deps.ts";
import { BarChart } from "../bar_chart.tsx";
import { StackedChart } from "../stacked_chart.tsx";
import type { PortalCtx } from "../context.ts";
import type { Words } from "../i18n.ts";
import { ColumnHeads, Layout } from "../layout.tsx";
import type { BudgetLine, Totals, UsageReport } from "../usage_report.ts";

export function levelName(deps: Pick<PortalDeps, "people">, words: Words, s: Scope): string {
  const t = deps.people.tenancy;
  switch (s.kind) {
    case "org":
      return words.t("level_org", { name: t.orgs.get(s.id)?.name ?? s.id });
    case "team":
      return words.t("level_team", { name: t.teams.get(s.id)?.name ?? s.id });
    case "project":
      return words.t("level_project", { name: t.projects.get(s.id)?.name ?? s.id });
    default:
      return words.t("level_person", { name: t.people.get(s.id)?.username ?? s.id });
  }
}

/** Most models drawn apart in the stacked chart; the rest are one "other" piece. */
const mostModels = 6;

/** Requests per day, one series per model (the busiest first), for the stacked chart. */
export function stackedByModel(
  report: UsageReport,
  other: string,
  label: (day: number) => string,
): { series: string[]; stacks: { label: string; values: number[] }[] } {
  const ranked = [...report.byModel].sort((a, b) => b.requests - a.requests).map((m) => m.model);
  const shown = ranked.slice(0, mostModels);
  const series = ranked.length > mostModels ? [...shown, other] : shown;
  const at = new Map(shown.map((m, i) => [m, i]));
  const stacks = report.daily.map((d) => ({ label: label(d.day), values: series.map(() => 0) }));
  const dayIndex = new Map(report.daily.map((d, i) => [d.day, i]));
  for (const cell of report.cells) {
    const row = stacks[dayIndex.get(cell.day) ?? -1];
    if (!row) continue;
    row.values[at.get(cell.model) ?? series.length - 1]! += cell.requests;
  }
  return { series, stacks };
}

/** One section of totals: a row a name with its requests, tokens and spend. */
const TotalsTable: FC<{
  ctx: PortalCtx;
  id: string;
  title: string;
  nameCol: string;
  rows: (Totals & { name: string })[];
}> = ({ ctx, id, title, nameCol, rows }) => {
  const { t } = ctx.words;
  const f = ctx.fmt;
  return (
    <section aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>{title}</h2>
      <div class="scroll">
        <table>
          <thead>
            <tr>
              <th scope="col">{nameCol}</th>
              <th scope="col" class="num">{t("col_requests")}</th>
              <th scope="col" class="num">{t("col_tokens")}</th>
              <th scope="col" class="num">{t("col_spend")}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr>
                <th scope="row">{r.name}</th>
                <td class="num">{f.int(r.requests)}</td>
                <td class="num">{f.int(r.tokens)}</td>
                <td class="num">{f.money(r.micros)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
};

export const UsagePage: FC<{
  ctx: PortalCtx;
  deps: Pick<PortalDeps, "people">;
  report: UsageReport;
  budgets: BudgetLine[];
  scope: "mine" | "all";
  canWiden: boolean;
  filter?: { key: string; project: string };
  choices?: { keys: { id: string; name: string }[]; projects: { id: string; name: string }[] };
}> = ({ ctx, deps, report, budgets, scope, canWiden, filter, choices }) => {
  const { t } = ctx.words;
  const f = ctx.fmt;
  const sum = (pick: (d: UsageReport["daily"][number]) => number) =>
    report.daily.reduce((a, d) => a + pick(d), 0);
  const max = (pick: (d: UsageReport["daily"][number]) => number) =>
    Math.max(0, ...report.daily.map(pick));
  const chart = (
    id: string,
    title: string,
    pick: (d: UsageReport["daily"][number]) => number,
    show: (n: number) => string,
  ) => (
    <BarChart
      id={id}
      title={title}
      summary={t("usage_chart_summary", { total: show(sum(pick)), max: show(max(pick)) })}
      bars={report.daily.map((d) => ({
        label: f.shortDay(d.day),
        value: pick(d),
        shown: show(pick(d)),
      }))}
    />
  );
  const empty = report.byModel.length === 0;
  return (
    <Layout ctx={ctx} title={t("usage_title")} path="/usage">
      <p class="muted">{t("usage_intro")}</p>
      <form method="get" action="/usage" class="row usage-filter">
        {canWiden && (
          <>
            <label for="usage-scope">{t("usage_scope")}</label>
            <select id="usage-scope" name="scope">
              <option value="mine" selected={scope === "mine"}>{t("usage_scope_mine")}</option>
              <option value="all" selected={scope === "all"}>{t("usage_scope_all")}</option>
            </select>
          </>
        )}
        {choices && choices.keys.length > 0 && (
          <>
            <label for="usage-key">{t("usage_key")}</label>
            <select id="usage-key" name="key">
              <option value="">{t("usage_every_key")}</option>
              {choices.keys.map((k) => (
                <option value={k.id} selected={filter?.key === k.id}>{k.name}</option>
              ))}
            </select>
          </>
        )}
        {choices && choices.projects.length > 0 && (
          <>
            <label for="usage-project">{t("usage_project")}</label>
            <select id="usage-project" name="project">
              <option value="">{t("usage_every_project")}</option>
              {choices.projects.map((p) => (
                <option value={p.id} selected={filter?.project === p.id}>{p.name}</option>
              ))}
            </select>
          </>
        )}
        <button type="submit" class="secondary">{t("usage_show")}</button>
      </form>
      <p>
        <a href={`/usage.csv?scope=${scope}`} download>{t("usage_csv")}</a>
      </p>
      {empty && <p>{t("usage_none")}</p>}
      <div class="charts">
        {chart("requests", t("usage_requests"), (d) => d.requests, (n) => f.int(n))}
        {chart("tokens", t("usage_tokens"), (d) => d.tokens, (n) => f.int(n))}
        {chart("spend", t("usage_spend"), (d) => d.micros, (n) => f.money(n))}
        {!empty && (
          <StackedChart
            id="requests-by-model"
            title={t("usage_requests_by_model")}
            {...stackedByModel(report, t("usage_other_models"), (d) => f.shortDay(d))}
            show={(n) => f.int(n)}
          />
        )}
      </div>
      {!empty && (
        <div class="two">
          <TotalsTable
            ctx={ctx}
            id="by-model"
            title={t("usage_by_model")}
            nameCol={t("col_model")}
            rows={report.byModel.map((m) => ({ ...m, name: m.model }))}
          />
          <TotalsTable
            ctx={ctx}
            id="by-key"
            title={t("usage_by_key")}
            nameCol={t("col_name")}
            rows={report.byKey.map((k) => ({ ...k, name: k.name ?? t("deleted_key") }))}
          />
        </div>
      )}
      <section aria-labelledby="budgets-h">
        <h2 id="budgets-h">{t("budgets_title")}</h2>
        {budgets.length === 0 ? <p>{t("budgets_none")}</p> : (
          <div class="scroll">
            <table>
              <ColumnHeads
                t={t}
                cols={["col_level", "col_period", { num: "col_budget" }, { num: "col_spent" }, {
                  num: "col_left",
                }]}
              />
              <tbody>
                {budgets.map((b) => {
                  const show = (n: number) =>
                    b.unit === "micros"
                      ? `${f.money(n)} ${t("unit_spend")}`
                      : `${f.int(n)} ${t("unit_tokens")}`;
                  const share = b.budget ? Math.min(1, b.spent / b.budget) : 1;
                  return (
                    <tr>
                      <th scope="row">{levelName(deps, ctx.words, b.scope)}</th>
                      <td>{t(b.period === "day" ? "period_day" : "period_month")}</td>
                      <td class="num">{show(b.budget)}</td>
                      <td class="num">
                        {show(b.spent)} ({f.percent(share)})
                        <meter min={0} max={1} value={share} aria-hidden="true"></meter>
                      </td>
                      <td class="num">{show(Math.max(0, b.budget - b.spent))}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </Layout>
  );
};
