/**
 * What the portal's server-drawn charts share: the figure with its caption, the SVG picture with
 * its label (the figures as text, for a screen reader) and its base line, and for the charts by
 * day (bar_chart.tsx, stacked_chart.tsx) the scale: a column per day, heights against the tallest
 * day, and the day labels under every seventh column and the last. line_chart.tsx draws its lines
 * in the same frame. No script anywhere.
 */
import type { Child, FC } from "hono/jsx";

/** Every chart is this wide in its own units; the page scales the picture to its box. */
export const chartWidth = 300;

export const ChartFrame: FC<{
  id: string;
  /** The figure's classes ("chart", "chart stacked", "chart line"). */
  cls: string;
  /** What the caption says after nothing else: the title and figures, in markup. */
  caption: Child;
  /** The picture's accessible name: the caption's figures as one sentence. */
  label: string;
  height: number;
  /** Where the base line is drawn. */
  axisY: number;
  /** Further attributes of the picture (data-points, preserveAspectRatio). */
  svg?: Record<string, string>;
  /** What follows the picture inside the figure (a legend). */
  after?: Child;
  children?: Child;
}> = ({ id, cls, caption, label, height, axisY, svg, after, children }) => (
  <figure class={cls} aria-labelledby={`${id}-cap`}>
    <figcaption id={`${id}-cap`}>{caption}</figcaption>
    <svg
      viewBox={`0 0 ${chartWidth} ${height}`}
      role="img"
      aria-label={label}
      data-chart={id}
      {...(svg ?? {})}
    >
      <line x1="0" y1={axisY} x2={chartWidth} y2={axisY} class="axis" />
      {children}
    </svg>
    {after}
  </figure>
);

/** The scale of a chart with one column per day, `height` tall with a strip for the labels. */
export interface DayScale {
  height: number;
  /** The base line's height: columns stand on it, labels go under it. */
  plot: number;
  /** Left edge and width of column `i`. */
  x(i: number): string;
  barWidth: string;
  /** How tall `value` is drawn: 0 stays 0, anything more at least 1. */
  h(value: number): number;
  /** Column `i`'s day label, under every seventh column that is not near the end, and the last. */
  tick(i: number, label: string): Child;
}

export function dayScale(columns: number, tallest: number): DayScale {
  const height = 110;
  const plot = height - 14;
  const max = Math.max(1, tallest);
  const step = chartWidth / Math.max(1, columns);
  const last = columns - 1;
  return {
    height,
    plot,
    x: (i) => (i * step + 1).toFixed(1),
    barWidth: Math.max(1, step - 2).toFixed(1),
    h: (v) => (v === 0 ? 0 : Math.max(1, (v / max) * (plot - 4))),
    tick: (i, label) =>
      ((i % 7 === 0 && i <= columns - 5) || i === last) && (
        <text
          x={(i === last ? chartWidth : i * step).toFixed(1)}
          y={height - 3}
          class="tick"
          text-anchor={i === last ? "end" : "start"}
        >
          {label}
        </text>
      ),
  };
}
