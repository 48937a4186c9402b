import { dayClock, dayHourAt } from './day-shape';
import type { FaultKind } from './run-data';
import { durations, percentile, type RunData } from './run-data';

/**
 * The timeline chart of a run as a standalone SVG, written by hand (no chart library): stacked
 * panels over one time axis (request rate, read p99, filing → push, backlogs, errors, the day's
 * filings), with every fault window shaded across all of them.
 */

interface Series {
  name: string;
  color: string;
  points: Array<[number, number]>;
  dots?: boolean;
}

interface Panel {
  title: string;
  unit: string;
  series: Series[];
  /** Logarithmic y axis from `min` (values below are drawn at `min`). */
  log?: { min: number };
  target?: { value: number; label: string };
}

const WIDTH = 1100;
const LEFT = 70;
const RIGHT = 150;
const PANEL_HEIGHT = 120;
const PANEL_GAP = 44;
const TOP = 70;
const FAULT_COLORS: Record<FaultKind, string> = {
  kill: '#e45756',
  postgres: '#b279a2',
  'dart-maintenance': '#f58518',
  'dart-slow': '#eeca3b',
  model: '#72b7b2',
  fcm: '#54a24b',
};

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const fixed = (n: number) => (Math.round(n * 10) / 10).toString();

/** Values per bucket of `bucketMs` over [from, to): what `reduce` makes of the items falling in each. */
function buckets<T>(
  items: readonly T[],
  at: (item: T) => number,
  from: number,
  to: number,
  bucketMs: number,
  reduce: (items: T[]) => number | null,
): Array<[number, number]> {
  const groups: T[][] = Array.from({ length: Math.max(1, Math.ceil((to - from) / bucketMs)) }, () => []);
  for (const item of items) {
    const index = Math.floor((at(item) - from) / bucketMs);
    if (index >= 0 && index < groups.length) groups[index].push(item);
  }
  const points: Array<[number, number]> = [];
  groups.forEach((group, i) => {
    const value = reduce(group);
    if (value !== null) points.push([from + (i + 0.5) * bucketMs, value]);
  });
  return points;
}

export function timelineSvg(data: RunData, pushLatency: Array<{ publishedAt: number; ms: number }>): string {
  const from = data.runStart;
  const to = data.drainEnd;
  const requests = data.edge.requests.filter((request) => request.at >= from);
  const reads = requests.filter((request) => request.kind === 'read');
  const perSecond = (bucketMs: number) => (items: unknown[]) => items.length / (bucketMs / 1000);
  const isError = (status: number) => status === 0 || status >= 500;

  const panels: Panel[] = [
    {
      title: 'Requests through the proxy',
      unit: 'req/s',
      series: [
        { name: 'reads', color: '#4c78a8', points: buckets(reads, (r) => r.at, from, to, 5_000, perSecond(5_000)) },
        {
          name: 'writes',
          color: '#f58518',
          points: buckets(
            requests.filter((r) => r.kind === 'write'),
            (r) => r.at,
            from,
            to,
            5_000,
            perSecond(5_000),
          ),
        },
      ],
    },
    {
      title: 'Read latency, p99 per 5 s (log scale)',
      unit: 'ms',
      log: { min: 1 },
      target: { value: data.settings.readP99TargetMs, label: `target ${data.settings.readP99TargetMs} ms` },
      series: [
        {
          name: 'read p99',
          color: '#4c78a8',
          points: buckets(
            reads.filter((r) => !isError(r.status)),
            (r) => r.at,
            from,
            to,
            5_000,
            (items) => (items.length === 0 ? null : percentile(durations(items), 0.99)),
          ),
        },
      ],
    },
    {
      title: 'Filing → first push, by publication time (log scale)',
      unit: 's',
      log: { min: 0.5 },
      target: { value: data.settings.pushP50TargetMs / 1000, label: `target p50 ${data.settings.pushP50TargetMs / 1000} s` },
      series: [
        { name: 'a filing', color: '#9ecae9', dots: true, points: pushLatency.map((push) => [push.publishedAt, push.ms / 1000]) },
        {
          name: 'p50 per 20 s',
          color: '#1f4e79',
          points: buckets(
            pushLatency,
            (push) => push.publishedAt,
            from,
            to,
            20_000,
            (items) => (items.length === 0 ? null : percentile(durations(items), 0.5) / 1000),
          ),
        },
      ],
    },
    {
      title: 'Backlogs (the database, once a second)',
      unit: 'rows',
      log: { min: 1 },
      series: [
        { name: 'analyses to do', color: '#e45756', points: data.samples.filter((s) => s.at >= from).map((s) => [s.at, s.analyses]) },
        { name: 'fan-outs to expand', color: '#b279a2', points: data.samples.filter((s) => s.at >= from).map((s) => [s.at, s.fanouts]) },
        {
          name: 'pushes to send',
          color: '#4c78a8',
          points: data.samples.filter((s) => s.at >= from).map((s) => [s.at, s.pending + s.sending]),
        },
        { name: 'pushes held', color: '#54a24b', points: data.samples.filter((s) => s.at >= from).map((s) => [s.at, s.held]) },
      ],
    },
    {
      title: 'Errors seen by the users',
      unit: 'per 5 s',
      series: [
        {
          name: '503',
          color: '#f58518',
          points: buckets(
            requests,
            (r) => r.at,
            from,
            to,
            5_000,
            (items) => items.filter((r) => r.status === 503).length,
          ),
        },
        {
          name: 'other 5xx',
          color: '#e45756',
          points: buckets(
            requests,
            (r) => r.at,
            from,
            to,
            5_000,
            (items) => items.filter((r) => r.status >= 500 && r.status !== 503).length,
          ),
        },
        {
          name: 'no answer',
          color: '#333333',
          points: buckets(
            requests,
            (r) => r.at,
            from,
            to,
            5_000,
            (items) => items.filter((r) => r.status === 0).length,
          ),
        },
      ],
    },
    {
      title: 'Filings published (the compressed day)',
      unit: 'per 10 s',
      series: [
        {
          name: 'filings',
          color: '#72b7b2',
          points: buckets(
            data.filings,
            (filing) => filing.publishedAt,
            from,
            to,
            10_000,
            (items) => items.length,
          ),
        },
      ],
    },
  ];

  const plotWidth = WIDTH - LEFT - RIGHT;
  const height = TOP + panels.length * (PANEL_HEIGHT + PANEL_GAP) + 30;
  const x = (at: number) => LEFT + ((at - from) / Math.max(1, to - from)) * plotWidth;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    `<text x="${LEFT}" y="20" font-size="15" font-weight="bold">npm run soak: a compressed trading day under faults</text>`,
  ];
  // Fault windows: shaded through every panel, labelled at the top.
  const plotTop = TOP - 8;
  const plotBottom = TOP + panels.length * (PANEL_HEIGHT + PANEL_GAP) - PANEL_GAP + 4;
  data.faults.forEach((fault, i) => {
    const x0 = x(fault.start);
    const x1 = Math.max(x0 + 2, x(fault.end));
    out.push(
      `<rect x="${fixed(x0)}" y="${plotTop}" width="${fixed(x1 - x0)}" height="${plotBottom - plotTop}" fill="${FAULT_COLORS[fault.kind]}" fill-opacity="0.16"/>`,
      `<text x="${fixed(x0 + 2)}" y="${32 + (i % 3) * 11}" fill="${FAULT_COLORS[fault.kind]}">${escape(fault.label)}</text>`,
    );
  });
  // The load's end: after it, only the drain.
  out.push(
    `<line x1="${fixed(x(data.runEnd))}" x2="${fixed(x(data.runEnd))}" y1="${plotTop}" y2="${plotBottom}" stroke="#555" stroke-dasharray="4 3"/>`,
    // Left of the line when the drain is too short to hold the label.
    x(data.runEnd) > LEFT + plotWidth - 110
      ? `<text x="${fixed(x(data.runEnd) - 3)}" y="${TOP + 10}" fill="#555" text-anchor="end">load stops</text>`
      : `<text x="${fixed(x(data.runEnd) + 3)}" y="${TOP + 10}" fill="#555">load stops; drain</text>`,
  );

  panels.forEach((panel, index) => {
    const top = TOP + index * (PANEL_HEIGHT + PANEL_GAP);
    const bottom = top + PANEL_HEIGHT;
    const values = panel.series.flatMap((series) => series.points.map(([, value]) => value));
    if (panel.target) values.push(panel.target.value);
    const rawMax = Math.max(1, ...values.filter(Number.isFinite));
    const scale = panel.log
      ? (() => {
          const min = Math.log10(panel.log.min);
          const max = Math.log10(rawMax) + 0.1;
          return (value: number) =>
            bottom - ((Math.log10(Math.max(value, panel.log!.min)) - min) / Math.max(0.1, max - min)) * PANEL_HEIGHT;
        })()
      : (value: number) => bottom - (value / (rawMax * 1.05)) * PANEL_HEIGHT;
    out.push(
      `<text x="${LEFT}" y="${top - 6}" font-weight="bold">${escape(panel.title)}</text>`,
      `<rect x="${LEFT}" y="${top}" width="${plotWidth}" height="${PANEL_HEIGHT}" fill="none" stroke="#bbbbbb"/>`,
    );
    // Y ticks: the bottom, the top, and the powers of ten between on a log scale.
    const ticks = panel.log
      ? Array.from({ length: 8 }, (_, i) => panel.log!.min * 10 ** i).filter((tick) => tick <= rawMax * 1.3)
      : [0, rawMax / 2, rawMax];
    for (const tick of ticks) {
      const y = scale(tick);
      out.push(
        `<line x1="${LEFT - 4}" x2="${LEFT + plotWidth}" y1="${fixed(y)}" y2="${fixed(y)}" stroke="#eeeeee"/>`,
        `<text x="${LEFT - 6}" y="${fixed(y + 4)}" text-anchor="end">${tick >= 10 || tick === 0 ? Math.round(tick) : tick.toPrecision(2)}</text>`,
      );
    }
    out.push(`<text x="${LEFT - 6}" y="${top - 6}" text-anchor="end" fill="#777">${escape(panel.unit)}</text>`);
    if (panel.target) {
      const y = fixed(scale(panel.target.value));
      out.push(
        `<line x1="${LEFT}" x2="${LEFT + plotWidth}" y1="${y}" y2="${y}" stroke="#d62728" stroke-dasharray="6 4"/>`,
        `<text x="${LEFT + plotWidth + 4}" y="${y}" fill="#d62728">${escape(panel.target.label)}</text>`,
      );
    }
    panel.series.forEach((series, i) => {
      const points = series.points.filter(([at]) => at >= from && at <= to);
      if (series.dots) {
        out.push(
          `<g fill="${series.color}">${points.map(([at, value]) => `<circle cx="${fixed(x(at))}" cy="${fixed(scale(value))}" r="1.6"/>`).join('')}</g>`,
        );
      } else if (points.length > 0) {
        const path = points.map(([at, value], j) => `${j === 0 ? 'M' : 'L'}${fixed(x(at))},${fixed(scale(value))}`).join('');
        out.push(`<path d="${path}" fill="none" stroke="${series.color}" stroke-width="1.4"/>`);
      }
      const legendY = top + 12 + i * 14;
      out.push(
        `<rect x="${LEFT + plotWidth + 6}" y="${legendY + (panel.target ? 8 : 0) - 8}" width="10" height="8" fill="${series.color}"/>`,
        `<text x="${LEFT + plotWidth + 20}" y="${legendY + (panel.target ? 8 : 0)}">${escape(series.name)}</text>`,
      );
    });
  });

  // The time axis: seconds into the run, and the modelled hour of the day.
  const axisY = plotBottom + 14;
  for (let at = from; at <= to; at += 60_000) {
    const offset = at - from;
    const label =
      offset <= data.settings.runMs ? `${offset / 1000} s · ${dayClock(dayHourAt(offset, data.settings.runMs))}` : `${offset / 1000} s`;
    out.push(
      `<line x1="${fixed(x(at))}" x2="${fixed(x(at))}" y1="${plotBottom - 4}" y2="${plotBottom}" stroke="#777"/>`,
      `<text x="${fixed(x(at))}" y="${axisY}" text-anchor="middle" fill="#555">${label}</text>`,
    );
  }
  out.push('</svg>', '');
  return out.join('\n');
}
