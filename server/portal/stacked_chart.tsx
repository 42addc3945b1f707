/**
 * A server-drawn SVG bar chart stacked by series (usage per day, one colour per model): a title
 * on each piece, and a legend whose text gives each series' total, so the figures are there for a
 * screen reader as well as for the eye. No script.
 */
import type { FC } from "hono/jsx";
import { ChartFrame, dayScale } from "./chart_frame.tsx";

export interface Stack {
  label: string;
  /** One value per series, in the series' order. */
  values: number[];
}

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
  const scale = dayScale(stacks.length, Math.max(...totals, 0));
  const bySeries = series.map((_, i) => stacks.reduce((a, s) => a + (s.values[i] ?? 0), 0));
  const colour = (i: number) => palette[Math.min(i, palette.length - 1)]!;
  const summary = series.map((name, i) => `${name} ${show(bySeries[i]!)}`).join(", ");
  const legend = (
    <ul class="legend plain">
      {series.map((name, i) => (
        <li>
          <span class="swatch" style={`background:${colour(i)}`} aria-hidden="true"></span>
          <span class="data">{name}</span> <span class="muted">{show(bySeries[i]!)}</span>
        </li>
      ))}
    </ul>
  );
  return (
    <ChartFrame
      id={id}
      cls="chart stacked"
      caption={<strong>{title}</strong>}
      label={`${title}: ${summary}`}
      height={scale.height}
      axisY={scale.plot}
      after={legend}
    >
      {stacks.map((s, d) => {
        let y = scale.plot;
        return (
          <g>
            {s.values.map((v, i) => {
              if (v === 0) return null;
              const h = scale.h(v);
              y -= h;
              return (
                <rect
                  x={scale.x(d)}
                  y={y.toFixed(1)}
                  width={scale.barWidth}
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
            {scale.tick(d, s.label)}
          </g>
        );
      })}
    </ChartFrame>
  );
};
