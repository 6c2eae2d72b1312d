import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/**
 * A time series chart drawn by uPlot (a small, well-kept canvas chart library, bundled: no CDN). A table of
 * the same numbers follows each chart for screen readers and for copying.
 */
export interface Series {
  label: string;
  values: number[];
  color: string;
}

export function TimeChart({ title, times, series, unit }: { title: string; times: number[]; series: Series[]; unit: 'hour' | 'day' }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return undefined;
    const width = Math.max(320, element.clientWidth || 640);
    const chart = new uPlot(
      {
        title,
        width,
        height: 220,
        scales: { x: { time: true } },
        axes: [{ values: unit === 'hour' ? '{HH}:{mm}' : '{M}/{D}' }, {}],
        series: [{}, ...series.map((entry) => ({ label: entry.label, stroke: entry.color, width: 2, points: { show: false } }))],
      },
      [times, ...series.map((entry) => entry.values)],
      element,
    );
    const resize = () => chart.setSize({ width: Math.max(320, element.clientWidth), height: 220 });
    window.addEventListener('resize', resize);
    return () => {
      window.removeEventListener('resize', resize);
      chart.destroy();
    };
  }, [title, times, series, unit]);
  return (
    <div
      class="chart"
      ref={box}
      role="img"
      aria-label={`${title}: ${series.map((entry) => `${entry.label} ${entry.values.reduce((a, b) => a + b, 0)} in all`).join(', ')}`}
    />
  );
}
