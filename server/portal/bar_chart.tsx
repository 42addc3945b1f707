/** A server-rendered SVG bar chart: one bar per day, a title on each bar, no script. */
import type { FC } from "hono/jsx";

export interface Bar {
  label: string;
  value: number;
  shown: string;
}

const width = 300;
const height = 110;
const axis = 14;

export const BarChart: FC<{ id: string; title: string; summary: string; bars: Bar[] }> = (
  { id, title, summary, bars },
) => {
  const max = Math.max(1, ...bars.map((b) => b.value));
  const step = width / Math.max(1, bars.length);
  const barW = Math.max(1, step - 2);
  const plot = height - axis;
  return (
    <figure class="chart" aria-labelledby={`${id}-cap`}>
      <figcaption id={`${id}-cap`}>
        <strong>{title}</strong> <span class="muted">{summary}</span>
      </figcaption>
      <svg
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-label={`${title}: ${summary}`}
        data-chart={id}
      >
        <line x1="0" y1={plot} x2={width} y2={plot} class="axis" />
        {bars.map((b, i) => {
          const h = b.value === 0 ? 0 : Math.max(1, (b.value / max) * (plot - 4));
          return (
            <g>
              <rect
                x={(i * step + 1).toFixed(1)}
                y={(plot - h).toFixed(1)}
                width={barW.toFixed(1)}
                height={h.toFixed(1)}
                class="bar"
                data-value={String(b.value)}
              >
                <title>{`${b.label}: ${b.shown}`}</title>
              </rect>
              {((i % 7 === 0 && i <= bars.length - 5) || i === bars.length - 1) && (
                <text
                  x={(i === bars.length - 1 ? width : i * step).toFixed(1)}
                  y={height - 3}
                  class="tick"
                  text-anchor={i === bars.length - 1 ? "end" : "start"}
                >
                  {b.label}
                </text>
              )}
            </g>
          );
        })}
      </svg>
    </figure>
  );
};
