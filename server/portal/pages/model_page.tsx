/**
 * One model for operators: its state and description, the last hour (requests a second, time to
 * first token, queue), its replicas with node and cards, the engine and the arguments the catalog
 * gives it (secret values hidden), the live tail of its engines' log, what its engines last said
 * when a start failed, its prices and its limits.
 */
import type { FC } from "hono/jsx";
import type { ModelEntry } from "../../router/catalog.ts";
import type { Price } from "../../accounting/price.ts";
import type { ModelSample } from "../../observe/recent_samples.ts";
import type { PortalCtx } from "../context.ts";
import { ColumnHeads, Layout } from "../layout.tsx";
import { LineChart } from "../line_chart.tsx";
import type { AdminModelRow } from "./admin_models.tsx";
import { replicaKey } from "./admin_models.tsx";
import { stateKey } from "./models.tsx";
import { EngineLogSection, type ReplicaLog } from "./engine_log.tsx";

export interface ModelPageData {
  row: AdminModelRow;
  price: Price;
  /** What /v1/models says of it: context, longest answer. */
  context: number | null;
  maxOutput: number | null;
  samples: ModelSample[];
  from: number;
  to: number;
  /** Each failed start's message (with the engine's last lines), by replica. */
  errors: { replica: string; node: string; text: string }[];
  /** Each replica's last engine lines, or why its node cannot give them. */
  logs: ReplicaLog[];
}

const secretFlag = /(key|token|secret|password|passwd|auth)/i;

/** The arguments with the value of any secret-looking flag replaced, `--api-key=x` and `--api-key x` alike. */
export function hideSecrets(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const eq = /^(--?[^=\s]+)=(.*)$/.exec(a);
    if (eq && secretFlag.test(eq[1]!)) {
      out.push(`${eq[1]}=••••`);
      continue;
    }
    out.push(a);
    if (/^--?[A-Za-z]/.test(a) && secretFlag.test(a) && i + 1 < args.length) {
      out.push("••••");
      i++;
    }
  }
  return out;
}

/** A shell-like line: arguments with spaces or quotes quoted. */
function commandLine(entry: ModelEntry): string {
  const quote = (s: string) => (/^[\w@%+=:,./•-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  return [entry.engine, ...hideSecrets(entry.args ?? [])].map(quote).join(" ");
}

const HourCharts: FC<{ ctx: PortalCtx; data: ModelPageData }> = ({ ctx, data }) => {
  const { t } = ctx.words;
  const f = ctx.fmt;
  const s = data.samples;
  const summary = (vals: (number | null)[], show: (n: number) => string) => {
    const v = vals.filter((x): x is number => x !== null);
    return v.length
      ? t("chart_latest_highest", { latest: show(v[v.length - 1]!), highest: show(Math.max(...v)) })
      : "";
  };
  const common = { from: data.from, to: data.to, empty: t("chart_no_samples") };
  const rps = s.map((x) => ({ at: x.at, value: x.requestsPerS }));
  const ttft = s.map((x) => ({ at: x.at, value: x.ttftMs }));
  const queue = s.map((x) => ({ at: x.at, value: x.queue }));
  return (
    <section aria-labelledby="hour-h">
      <h2 id="hour-h">{t("cluster_last_hour")}</h2>
      <div class="charts">
        <LineChart
          id="model-rps"
          title={t("chart_requests_per_s")}
          summary={summary(rps.map((p) => p.value), (n) => f.decimal(n))}
          points={rps}
          {...common}
        />
        <LineChart
          id="model-ttft"
          title={t("chart_ttft")}
          summary={summary(ttft.map((p) => p.value), (n) => `${f.int(n)} ms`)}
          points={ttft}
          {...common}
        />
        <LineChart
          id="model-queue"
          title={t("chart_queue")}
          summary={summary(queue.map((p) => p.value), (n) => f.int(n))}
          points={queue}
          {...common}
        />
      </div>
    </section>
  );
};

export const ModelPage: FC<{ ctx: PortalCtx; data: ModelPageData }> = ({ ctx, data }) => {
  const { t } = ctx.words;
  const f = ctx.fmt;
  const { entry } = data.row;
  const placed = new Map(data.row.placements.map((p) => [p.id, p]));
  return (
    <Layout ctx={ctx} title={t("model_page_title", { model: entry.name })} path="/admin/models">
      <p>
        <span class={`badge state-${data.row.state}`}>{t(stateKey[data.row.state])}</span>{" "}
        {entry.description && <span class="muted data">{entry.description}</span>}
      </p>
      <p>
        <a href="/admin/models">{t("model_page_back")}</a>
      </p>
      <HourCharts ctx={ctx} data={data} />

      <section aria-labelledby="replicas-h">
        <h2 id="replicas-h">{t("col_replicas")}</h2>
        {data.row.replicas.length === 0 && data.row.placements.length === 0
          ? <p class="muted">{t("no_replicas")}</p>
          : (
            <div class="scroll">
              <table id="model-replicas">
                <ColumnHeads
                  t={t}
                  cols={["col_replica", "col_state", "col_node", "col_cards", {
                    num: "col_in_flight",
                  }]}
                />
                <tbody>
                  {data.row.replicas.map((r) => {
                    const p = placed.get(r.id) ??
                      data.row.placements.find((x) => r.id.endsWith(x.id));
                    return (
                      <tr>
                        <th scope="row" class="mono">{r.id}</th>
                        <td>
                          <span class={`badge replica-${r.state}`}>{t(replicaKey[r.state])}</span>
                        </td>
                        <td>{p?.node ?? "–"}</td>
                        <td>{p?.gpus.length ? p.gpus.join(", ") : "–"}</td>
                        <td class="num">
                          {`${f.int(r.inFlight)}${r.slots ? ` / ${f.int(r.slots)}` : ""}`}
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )}
      </section>

      <section aria-labelledby="engine-h">
        <h2 id="engine-h">{t("model_engine_line")}</h2>
        <pre id="model-command" tabindex={0}><code>{commandLine(entry)}</code></pre>
        {entry.source && <p class="small muted">{t("model_source", { source: entry.source })}</p>}
      </section>

      <EngineLogSection ctx={ctx} model={entry.name} logs={data.logs} />

      <section aria-labelledby="errors-h">
        <h2 id="errors-h">{t("model_errors")}</h2>
        {data.errors.length === 0 ? <p class="muted">{t("model_errors_none")}</p> : (
          data.errors.map((e) => (
            <div class="card">
              <p class="small">
                {t("model_error_on", { replica: e.replica, node: e.node })}
              </p>
              <pre class="log" tabindex={0}><code>{e.text}</code></pre>
            </div>
          ))
        )}
      </section>

      <section aria-labelledby="prices-h" class="two">
        <div>
          <h2 id="prices-h">{t("model_prices")}</h2>
          <dl class="pairs">
            <dt>{t("col_price_prompt")}</dt>
            <dd>{f.price(data.price.promptPer1k)}</dd>
            <dt>{t("col_price_completion")}</dt>
            <dd>{f.price(data.price.completionPer1k)}</dd>
            <dt>{t("col_price_cached")}</dt>
            <dd>{f.price(data.price.cachedPer1k)}</dd>
          </dl>
        </div>
        <div>
          <h2 id="limits-h">{t("model_limits")}</h2>
          <dl class="pairs">
            <dt>{t("col_context")}</dt>
            <dd>{data.context === null ? t("unknown") : f.int(data.context)}</dd>
            <dt>{t("max_output")}</dt>
            <dd>{data.maxOutput === null ? t("limit_none") : f.int(data.maxOutput)}</dd>
            <dt>{t("model_slots")}</dt>
            <dd>{entry.slots ? f.int(entry.slots) : t("unknown")}</dd>
            <dt>{t("col_queued")}</dt>
            <dd>{f.int(data.row.queued)}</dd>
          </dl>
        </div>
      </section>
    </Layout>
  );
};
