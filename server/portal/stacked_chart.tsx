/**
 * A server-drawn SVG bar chart stacked by series (usage per day, one colour per model): a title
 * on each piece, and a legend whose text gives each series' total, so the figures are there for a
 * screen reader as well as for the eye. No script.
 */
import type { FC } from "hono/jsx";

export interface Stack {
  label: string;
  /** One value per series, in the series' order. */
  values: number[];
}

const width = 300;
const height = 110;
const axis = 14;
/** Colours a reader tells apart (Okabe–Ito), in order; more series than this share the last. */
const palette = ["#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#6b6b6b"];

export const StackedChart: FC<{
  id: string;
  title: string;
  series: string[];
  stacks: Stack[];
  show: (n: number) => string;
}> = ({ id, title, series, stacks, show }) => {
  const totals = stacks.map((s) => s.values.reduce((a, b) => a + b, 0));
  const max = Math.max(1, ...totals);
  const step = width / Math.max(1, stacks.length);
  const barW = Math.max(1, step - 2);
  const plot = height - axis;
  const bySeries = series.map((_, i) => stacks.reduce((a, s) => a + (s.values[i] ?? 0), 0));
  const colour = (i: number) => palette[Math.min(i, palette.length - 1)]!;
  const summary = series.map((name, i) => `${name} ${show(bySeries[i]!)}`).join(", ");
  return (
    <figure class="chart stacked" aria-labelledby={`${id}-cap`}>
      <figcaption id={`${id}-cap`}>
        <strong>{title}</strong>
      </figcaption>
      <svg
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-label={`${title}: ${summary}`}
        data-chart={id}
      >
        <line x1="0" y1={plot} x2={width} y2={plot} class="axis" />
        {stacks.map((s, d) => {
          let y = plot;
          return (
            <g>
              {s.values.map((v, i) => {
                if (v === 0) return null;
                const h = Math.max(1, (v / max) * (plot - 4));
                y -= h;
                return (
                  <rect
                    x={(d * step + 1).toFixed(1)}
                    y={y.toFixed(1)}
                    width={barW.toFixed(1)}
                    height={h.toFixed(1)}
                    fill={colour(i)}
                    class="piece"
                    data-series={series[i]}
                    data-value={String(v)}
                  >
                    <title>{`${s.label}, ${series[i]}: ${show(v)}`}</title>
                  </rect>
                );
              })}
              {((d % 7 === 0 && d <= stacks.length - 5) || d === stacks.length - 1) && (
                <text
                  x={(d === stacks.length - 1 ? width : d * step).toFixed(1)}
                  y={height - 3}
                  class="tick"
                  text-anchor={d === stacks.length - 1 ? "end" : "start"}
                >
                  {s.label}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <ul class="legend plain">
        {series.map((name, i) => (
          <li>
            <span class="swatch" style={`background:${colour(i)}`} aria-hidden="true"></span>
            <span class="data">{name}</span> <span class="muted">{show(bySeries[i]!)}</span>
          </li>
        ))}
      </ul>
    </figure>
  );
};
