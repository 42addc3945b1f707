/**
 * A server-drawn SVG line over the last hour: one point per ten-second sample, gaps where none was
 * taken, no script. The caption carries the figures (latest, highest) as text, and the picture's
 * label repeats them, so a screen reader hears what a sighted reader sees.
 */
import type { FC } from "hono/jsx";
import { ChartFrame, chartWidth as width } from "./chart_frame.tsx";

export interface Point {
  at: number;
  value: number | null;
}

const height = 80;
const pad = 3;
/** Two samples further apart than this are drawn as a gap, not a line across it. */
const gapMs = 25_000;

/**
 * At most this many points are drawn (a minute apiece over the hour): enough for a picture 300
 * units wide, and a page of 80 cards stays small.
 */
const mostPoints = 60;

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

/** One line of a chart: its name, points, the top of its scale, and its figures as text. */
export interface Line {
  name: string;
  points: Point[];
  /** The top of the scale (100 for a percentage); else the line's highest point. */
  max?: number;
  /** "latest 42 %, highest 97 %"; empty when the line has no samples. */
  summary: string;
  /** Its colour's class (line-1, line-2, …). */
  cls?: string;
}

function pathOf(l: Line, from: number, to: number): string {
  const values = l.points.map((p) => p.value).filter((v): v is number => v !== null);
  const top = l.max ?? Math.max(1, ...values);
  const gap = gapMs * Math.max(1, Math.ceil(l.points.length / mostPoints));
  return linePath(thin(l.points), from, to, top, gap);
}

/**
 * Several lines over the same hour in one picture (a card's utilisation, memory and power), each
 * on its own scale; the caption names each line with its figures.
 */
export const LinesChart: FC<{
  id: string;
  title: string;
  lines: Line[];
  from: number;
  to: number;
  /** Words for "no samples in the last hour". */
  empty: string;
}> = ({ id, title, lines, from, to, empty }) => {
  const count = Math.max(0, ...lines.map((l) => l.points.filter((p) => p.value !== null).length));
  const text = (l: Line) => `${l.name}: ${l.summary || empty}`;
  const label = count ? `${title}. ${lines.map(text).join("; ")}` : `${title}: ${empty}`;
  const caption = (
    <>
      <strong>{title}</strong> {count === 0
        ? <span class="muted">{empty}</span>
        : lines.length === 1
        ? <span class="muted">{lines[0]!.summary}</span>
        : (
          <ul class="legend plain">
            {lines.map((l) => (
              <li>
                <span class={`swatch ${l.cls ?? "line-1"}`} aria-hidden="true"></span>
                <span class="muted">{text(l)}</span>
              </li>
            ))}
          </ul>
        )}
    </>
  );
  return (
    <ChartFrame
      id={id}
      cls="chart line"
      caption={caption}
      label={label}
      height={height}
      axisY={height - pad}
      svg={{ "data-points": String(count), preserveAspectRatio: "none" }}
    >
      {lines.map((l) => <path d={pathOf(l, from, to)} class={`line ${l.cls ?? "line-1"}`} />)}
    </ChartFrame>
  );
};

/** One line: the common case (a model's requests a second). */
export const LineChart: FC<{
  id: string;
  title: string;
  summary: string;
  points: Point[];
  from: number;
  to: number;
  max?: number;
  empty: string;
}> = ({ id, title, summary, points, from, to, max, empty }) => (
  <LinesChart
    id={id}
    title={title}
    lines={[{ name: title, points, summary, ...(max !== undefined ? { max } : {}) }]}
    from={from}
    to={to}
    empty={empty}
  />
);
