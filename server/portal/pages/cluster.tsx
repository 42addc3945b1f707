/**
 * The cluster page: nodes with their cards (memory bar, busy, temperature, power against limit,
 * what runs on each), state and last heard, cordon/drain. The live part is re-read every few
 * seconds by web/live.js, which pauses while a field has focus or a form has unsent typing.
 */
import type { FC } from "hono/jsx";
import type { GpuInfo } from "../../../core/protocol/host_report.ts";
import type { NodeState, NodeView } from "../../nodes/node_hub.ts";
import type { PortalCtx, Viewer } from "../context.ts";
import type { PortalKey } from "../i18n.ts";
import { Layout, Notice } from "../layout.tsx";
import type { CardSample } from "../../observe/recent_samples.ts";
import { LinesChart } from "../line_chart.tsx";

/** A card's last hour, and the hour's ends (the samples' own clock). */
export interface CardHistory {
  series: (node: string, index: number) => CardSample[];
  from: number;
  to: number;
}

const nodeStateKey: Record<NodeState, PortalKey> = {
  ready: "node_state_ready",
  cordoned: "node_state_cordoned",
  draining: "node_state_draining",
  lost: "node_state_lost",
  waiting: "node_state_waiting",
};

function gpusOf(n: NodeView): GpuInfo[] {
  const g = n.gpu as { gpus?: GpuInfo[] } | undefined;
  return Array.isArray(g?.gpus) ? g.gpus : [];
}

const Gpu: FC<{ ctx: PortalCtx; g: GpuInfo; replicas: Map<string, string> }> = (
  { ctx, g, replicas },
) => {
  const { t } = ctx.words;
  const f = ctx.fmt;
  const used = g.memoryUsedBytes ?? 0;
  const total = g.memoryTotalBytes ?? 0;
  const share = total ? used / total : 0;
  const runs = [
    ...new Set(g.processes.map((p) => replicas.get(p.replicaId ?? "") ?? p.replicaId ?? "")),
  ]
    .filter(Boolean);
  const power = g.powerDrawW !== undefined
    ? `${f.int(g.powerDrawW)} W${g.powerLimitW ? ` / ${f.int(g.powerLimitW)} W` : ""}`
    : "–";
  return (
    <tr>
      <th scope="row">
        {`${g.index}: ${g.name}`}
      </th>
      <td>
        <div class="membar" aria-hidden="true">
          <span style={`width:${(share * 100).toFixed(1)}%`}></span>
        </div>
        <span class="small">
          {total ? `${f.bytes(used)} / ${f.bytes(total)} (${f.percent(share)})` : "–"}
        </span>
      </td>
      <td class="num">
        {g.utilizationPercent !== undefined ? f.percent(g.utilizationPercent / 100) : "–"}
      </td>
      <td class="num">
        {g.temperatureC !== undefined ? `${f.int(g.temperatureC)} °C` : "–"}
      </td>
      <td class="num">{power}</td>
      <td>{runs.length ? runs.join(", ") : t("gpu_idle")}</td>
    </tr>
  );
};

/** Utilisation, memory and power of one card over the last hour. */
const CardCharts: FC<{ ctx: PortalCtx; node: NodeView; g: GpuInfo; history: CardHistory }> = (
  { ctx, node, g, history },
) => {
  const { t } = ctx.words;
  const f = ctx.fmt;
  const samples = history.series(node.name, g.index);
  const id = `card-${node.id}-${g.index}`;
  const pick = (k: "util" | "memory" | "powerW") => samples.map((s) => ({ at: s.at, value: s[k] }));
  const figures = (vals: (number | null)[], show: (n: number) => string) => {
    const v = vals.filter((x): x is number => x !== null);
    return v.length
      ? t("chart_latest_highest", { latest: show(v[v.length - 1]!), highest: show(Math.max(...v)) })
      : "";
  };
  return (
    <LinesChart
      id={id}
      title={t("card_hour", { card: `${g.index}: ${g.name}` })}
      from={history.from}
      to={history.to}
      empty={t("chart_no_samples")}
      lines={[
        {
          name: t("gpu_util"),
          points: pick("util"),
          max: 100,
          summary: figures(pick("util").map((p) => p.value), (n) => f.percent(n / 100)),
          cls: "line-1",
        },
        {
          name: t("gpu_memory"),
          points: pick("memory"),
          max: 1,
          summary: figures(pick("memory").map((p) => p.value), (n) => f.percent(n)),
          cls: "line-2",
        },
        {
          name: t("gpu_power"),
          points: pick("powerW"),
          ...(g.powerLimitW ? { max: g.powerLimitW } : {}),
          summary: figures(pick("powerW").map((p) => p.value), (n) => `${f.int(n)} W`),
          cls: "line-3",
        },
      ]}
    />
  );
};

export const ClusterNodes: FC<
  { ctx: PortalCtx; viewer: Viewer; nodes: NodeView[]; history?: CardHistory }
> = (
  { ctx, viewer, nodes, history },
) => {
  const { t } = ctx.words;
  const f = ctx.fmt;
  return (
    <div>
      {nodes.length === 0 && <p>{t("cluster_none")}</p>}
      {nodes.map((n) => {
        const gpus = gpusOf(n);
        const replicas = new Map(n.replicas.map((s) => [s.replicaId, s.model]));
        const actions: [string, PortalKey][] = n.cordoned
          ? [["uncordon", "uncordon"]]
          : [["cordon", "cordon"], ["drain", "drain"]];
        return (
          <section class="card node" aria-labelledby={`node-${n.id}`}>
            <div class="row spread">
              <h2 id={`node-${n.id}`}>{n.name}</h2>
              <span class={`badge node-${n.state}`}>
                {t("node_state", { state: t(nodeStateKey[n.state]) })}
              </span>
            </div>
            <p class="muted small">
              {t("node_last_heard", {
                time: n.lastHeardAt ? f.ago(n.lastHeardAt, ctx.now) : t("never"),
              })}
            </p>
            {gpus.length === 0 ? <p>{t("node_no_gpu")}</p> : (
              <div class="scroll">
                <table class="gpus">
                  <thead>
                    <tr>
                      <th scope="col">GPU</th>
                      <th scope="col">{t("gpu_memory")}</th>
                      <th scope="col" class="num">{t("gpu_util")}</th>
                      <th scope="col" class="num">{t("gpu_temp")}</th>
                      <th scope="col" class="num">{t("gpu_power")}</th>
                      <th scope="col">{t("gpu_runs")}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {gpus.map((g) => <Gpu ctx={ctx} g={g} replicas={replicas} />)}
                  </tbody>
                </table>
              </div>
            )}
            {history && gpus.length > 0 && (
              <details class="hour" open={gpus.length <= 2}>
                <summary>{t("cluster_last_hour")}</summary>
                <div class="charts card-charts">
                  {gpus.map((g) => <CardCharts ctx={ctx} node={n} g={g} history={history} />)}
                </div>
              </details>
            )}
            <div class="row">
              {actions.map(([verb, key]) => (
                <form method="post" action={`/admin/cluster/${encodeURIComponent(n.id)}/${verb}`}>
                  <input type="hidden" name="_csrf" value={viewer.csrf} />
                  <button
                    type="submit"
                    class="secondary"
                    aria-label={t("node_action_for", { action: t(key), node: n.name })}
                  >
                    {t(key)}
                  </button>
                </form>
              ))}
            </div>
          </section>
        );
      })}
    </div>
  );
};

export const ClusterPage: FC<{
  ctx: PortalCtx;
  viewer: Viewer;
  nodes: NodeView[] | null;
  history?: CardHistory;
  notice?: { kind: "ok" | "error"; text: string };
}> = ({ ctx, viewer, nodes, history, notice }) => {
  const { t } = ctx.words;
  return (
    <Layout ctx={ctx} title={t("cluster_title")} path="/admin/cluster">
      <p class="muted">{t("cluster_intro")}</p>
      {notice && <Notice kind={notice.kind}>{notice.text}</Notice>}
      <p id="live-paused" class="muted small" hidden>{t("cluster_paused")}</p>
      {nodes === null
        ? <p>{t("cluster_off")}</p>
        : (
          <div id="live" data-live="/admin/cluster?part=live" data-every="4000">
            <ClusterNodes
              ctx={ctx}
              viewer={viewer}
              nodes={nodes}
              {...(history ? { history } : {})}
            />
          </div>
        )}
      <script src="/static/live.js" defer></script>
    </Layout>
  );
};
