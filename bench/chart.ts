/**
 * Line charts as plain SVG, drawn by the bench itself (no chart library to load in a headless run): one
 * chart per scaling series, x on a log scale (sizes and counts grow by factors), y from zero, one line per
 * measure with its own axis (req/s on the left, p99 on the right).
 */
export interface SeriesPoint {
  x: number;
  requestsPerSecond: number;
  p99LatencyMs: number;
  /** Answers other than 2xx during the point's load (not drawn; a series with any does not pass). */
  non2xx?: number;
  /** With non-2xx answers: what one request made right after the load answered, and the daemon's first failure line. */
  sampleFailure?: string;
}

const WIDTH = 640;
const HEIGHT = 320;
const PAD = { left: 70, right: 70, top: 40, bottom: 50 };

function niceMax(value: number): number {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const format = (n: number) =>
  n >= 1000 ? `${Math.round(n / 100) / 10}k` : n >= 10 ? String(Math.round(n)) : String(Math.round(n * 10) / 10);

export function lineChart(title: string, xLabel: string, points: SeriesPoint[], xFormat: (x: number) => string = format): string {
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const xs = points.map((p) => Math.log10(Math.max(p.x, 1e-9)));
  const xMin = Math.min(...xs);
  const xMax = Math.max(...xs) === xMin ? xMin + 1 : Math.max(...xs);
  const rpsMax = niceMax(Math.max(...points.map((p) => p.requestsPerSecond)));
  const p99Max = niceMax(Math.max(...points.map((p) => p.p99LatencyMs)));
  const px = (x: number) => PAD.left + ((Math.log10(x) - xMin) / (xMax - xMin)) * plotW;
  const py = (value: number, max: number) => PAD.top + plotH - (value / max) * plotH;
  const line = (values: number[], max: number) =>
    points.map((p, i) => `${i === 0 ? 'M' : 'L'}${px(p.x).toFixed(1)},${py(values[i]!, max).toFixed(1)}`).join(' ');
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#fff"/>`,
    `<text x="${WIDTH / 2}" y="22" text-anchor="middle" font-size="14" font-weight="bold">${escape(title)}</text>`,
  ];
  for (const t of ticks) {
    const y = PAD.top + plotH - t * plotH;
    parts.push(`<line x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y}" y2="${y}" stroke="#e5e5e5"/>`);
    parts.push(`<text x="${PAD.left - 8}" y="${y + 4}" text-anchor="end" fill="#1f6feb">${format(t * rpsMax)}</text>`);
    parts.push(`<text x="${WIDTH - PAD.right + 8}" y="${y + 4}" fill="#d1242f">${format(t * p99Max)}</text>`);
  }
  for (const p of points) {
    parts.push(`<line x1="${px(p.x)}" x2="${px(p.x)}" y1="${PAD.top + plotH}" y2="${PAD.top + plotH + 5}" stroke="#333"/>`);
    parts.push(`<text x="${px(p.x)}" y="${PAD.top + plotH + 18}" text-anchor="middle">${escape(xFormat(p.x))}</text>`);
  }
  parts.push(`<line x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${PAD.top + plotH}" y2="${PAD.top + plotH}" stroke="#333"/>`);
  parts.push(`<text x="${WIDTH / 2}" y="${HEIGHT - 10}" text-anchor="middle">${escape(xLabel)}</text>`);
  parts.push(
    `<text x="18" y="${PAD.top + plotH / 2}" fill="#1f6feb" transform="rotate(-90 18 ${PAD.top + plotH / 2})" text-anchor="middle">req/s</text>`,
  );
  parts.push(
    `<text x="${WIDTH - 14}" y="${PAD.top + plotH / 2}" fill="#d1242f" transform="rotate(90 ${WIDTH - 14} ${PAD.top + plotH / 2})" text-anchor="middle">p99 ms</text>`,
  );
  parts.push(
    `<path d="${line(
      points.map((p) => p.requestsPerSecond),
      rpsMax,
    )}" fill="none" stroke="#1f6feb" stroke-width="2"/>`,
  );
  parts.push(
    `<path d="${line(
      points.map((p) => p.p99LatencyMs),
      p99Max,
    )}" fill="none" stroke="#d1242f" stroke-width="2" stroke-dasharray="6 4"/>`,
  );
  for (const p of points) {
    parts.push(`<circle cx="${px(p.x)}" cy="${py(p.requestsPerSecond, rpsMax)}" r="3" fill="#1f6feb"/>`);
    parts.push(`<circle cx="${px(p.x)}" cy="${py(p.p99LatencyMs, p99Max)}" r="3" fill="#d1242f"/>`);
  }
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
