/** A server-rendered SVG bar chart: one bar per day, a title on each bar, no script. */
import type { FC } from "hono/jsx";
import { ChartFrame, dayScale } from "./chart_frame.tsx";

export interface Bar {
  label: string;
  value: number;
  shown: string;
}

export const BarChart: FC<{ id: string; title: string; summary: string; bars: Bar[] }> = (
  { id, title, summary, bars },
) => {
  const s = dayScale(bars.length, Math.max(...bars.map((b) => b.value), 0));
  return (
    <ChartFrame
      id={id}
      cls="chart"
      caption={
        <>
          <strong>{title}</strong> <span class="muted">{summary}</span>
        </>
      }
      label={`${title}: ${summary}`}
      height={s.height}
      axisY={s.plot}
    >
      {bars.map((b, i) => {
        const h = s.h(b.value);
        return (
          <g>
            <rect
              x={s.x(i)}
              y={(s.plot - h).toFixed(1)}
              width={s.barWidth}
              height={h.toFixed(1)}
              class="bar"
              data-value={String(b.value)}
            >
              <title>{`${b.label}: ${b.shown}`}</title>
            </rect>
            {s.tick(i, b.label)}
          </g>
        );
      })}
    </ChartFrame>
  );
};
