/**
 * A server-drawn SVG line over the last hour: one point per ten-second sample, gaps where none was
 * taken, no script. The caption carries the figures (latest, highest) as text, and the picture's
 * label repeats them, so a screen reader hears what a sighted reader sees.
 */
import type { FC } from "hono/jsx";

export interface Point {
  at: number;
  value: number | null;
}

const width = 300;
const height = 80;
const pad = 3;
/** Two samples further apart than this are drawn as a gap, not a line across it. */
const gapMs = 25_000;

/** At most this many points are drawn: a 300-unit-wide picture shows no more. */
const mostPoints = 120;

/** Neighbouring points averaged in groups, so at most `mostPoints` remain; a group all gaps stays a gap. */
export function thin(points: Point[]): Point[] {
  if (points.length <= mostPoints) return points;
  const size = Math.ceil(points.length / mostPoints);
  const out: Point[] = [];
  for (let i = 0; i < points.length; i += size) {
    const group = points.slice(i, i + size);
    const vals = group.map((p) => p.value).filter((v): v is number => v !== null);
    out.push({
      at: group[group.length - 1]!.at,
      value: vals.length ? vals.reduce((a, b) => a + b, 0) / vals.length : null,
    });
  }
  return out;
}

/** The SVG path through the points, x over [from, to] and y over [0, max]. */
export function linePath(
  points: Point[],
  from: number,
  to: number,
  max: number,
  gap = gapMs,
): string {
  const span = Math.max(1, to - from);
  const x = (at: number) => ((at - from) / span) * width;
  const y = (v: number) => height - pad - (v / Math.max(max, 1e-9)) * (height - 2 * pad);
  let d = "";
  let last: number | null = null;
  for (const p of points) {
    if (p.value === null) {
      last = null;
      continue;
    }
    const move = last === null || p.at - last > gap;
    d += `${move ? "M" : "L"}${x(p.at).toFixed(1)},${y(p.value).toFixed(1)}`;
    last = p.at;
  }
  return d;
}

export const LineChart: FC<{
  id: string;
  title: string;
  /** The figures as text: "latest 42 %, highest 97 %". */
  summary: string;
  points: Point[];
  from: number;
  to: number;
  /** The top of the scale (100 for a percentage); else the highest point. */
  max?: number;
  /** Words for "no samples in the last hour". */
  empty: string;
}> = ({ id, title, summary, points, from, to, max, empty }) => {
  const values = points.map((p) => p.value).filter((v): v is number => v !== null);
  const top = max ?? Math.max(1, ...values);
  const label = values.length ? `${title}: ${summary}` : `${title}: ${empty}`;
  return (
    <figure class="chart line" aria-labelledby={`${id}-cap`}>
      <figcaption id={`${id}-cap`}>
        <strong>{title}</strong> <span class="muted">{values.length ? summary : empty}</span>
      </figcaption>
      <svg
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-label={label}
        data-chart={id}
        data-points={String(values.length)}
        preserveAspectRatio="none"
      >
        <line x1="0" y1={height - pad} x2={width} y2={height - pad} class="axis" />
        <path
          d={linePath(thin(points), from, to, top, gapMs * Math.ceil(points.length / mostPoints))}
          class="line"
        />
      </svg>
    </figure>
  );
};
