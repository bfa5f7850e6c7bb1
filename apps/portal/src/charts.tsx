import { useId, type ReactNode } from 'react';
import type { StatsPoint } from './types.ts';

// Small hand-written SVG charts of a subscription's statistics series (GET /webhooks/:id/stats, docs/portal.md):
// no charting library for two charts of at most 24 bars or points. Each is an image with a title and a
// description that says what it shows in words (role="img"), and its numbers are in a table beside it.
// Colours come from classes (the portal's CSP admits no inline style).

const W = 320;
const H = 120;
const LEFT = 44;
const RIGHT = 8;
const TOP = 8;
const BOTTOM = 20;
const PLOT_W = W - LEFT - RIGHT;
const PLOT_H = H - TOP - BOTTOM;

export const percent = (r: number | null) => (r === null ? '—' : `${Math.round(r * 1000) / 10}%`);

/** A bucket's start as the table and the descriptions name it: the hour, or the day. */
export function bucketLabel(start: string, bucket: 'hour' | 'day'): string {
  const d = new Date(start);
  return bucket === 'hour'
    ? d.toLocaleString(undefined, { weekday: 'short', hour: '2-digit', minute: '2-digit' })
    : d.toLocaleString(undefined, { weekday: 'short', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

/** The smallest of 1, 2, 5 × 10^n at or above `v` (an axis maximum). */
function niceCeiling(v: number): number {
  if (v <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(v));
  return ([1, 2, 5, 10].find((m) => m * power >= v) ?? 10) * power;
}

function XAxis({ bucket, span }: { bucket: 'hour' | 'day'; span: number }) {
  return (
    <>
      <line className="axis" x1={LEFT} x2={W - RIGHT} y1={TOP + PLOT_H} y2={TOP + PLOT_H} />
      <text x={LEFT} y={H - 4}>
        {span} {bucket === 'hour' ? 'h' : 'd'} ago
      </text>
      <text x={W - RIGHT} y={H - 4} textAnchor="end">
        now
      </text>
    </>
  );
}

function YGrid({ ticks }: { ticks: { at: number; label: string }[] }) {
  return (
    <>
      {ticks.map((t) => (
        <g key={t.label}>
          <line className="grid" x1={LEFT} x2={W - RIGHT} y1={TOP + (1 - t.at) * PLOT_H} y2={TOP + (1 - t.at) * PLOT_H} />
          <text x={LEFT - 4} y={TOP + (1 - t.at) * PLOT_H + 4} textAnchor="end">
            {t.label}
          </text>
        </g>
      ))}
    </>
  );
}

/** A chart's frame: an image (role="img") named by its title and described in words, its grid, its time axis. */
function ChartFrame(props: {
  title: string;
  description: string;
  ticks: { at: number; label: string }[];
  bucket: 'hour' | 'day';
  span: number;
  children: ReactNode;
}) {
  const id = useId();
  return (
    <svg className="chart" viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby={`${id}t`} aria-describedby={`${id}d`}>
      <title id={`${id}t`}>{props.title}</title>
      <desc id={`${id}d`}>{props.description}</desc>
      <YGrid ticks={props.ticks} />
      {props.children}
      <XAxis bucket={props.bucket} span={props.span} />
    </svg>
  );
}

/** Success rate per bucket: a bar per bucket with finished deliveries (a red line at the bottom for 0%). */
export function SuccessChart({ points, bucket, title }: { points: StatsPoint[]; bucket: 'hour' | 'day'; title: string }) {
  const bw = PLOT_W / Math.max(points.length, 1);
  const finished = points.filter((p) => p.successRatio !== null);
  const lowest = finished.reduce<StatsPoint | undefined>(
    (low, p) => (low === undefined || p.successRatio! < low.successRatio! ? p : low),
    undefined,
  );
  const delivered = points.reduce((s, p) => s + p.delivered, 0);
  const failed = points.reduce((s, p) => s + p.failed, 0);
  const description = finished.length
    ? `${finished.length} of ${points.length} ${bucket}s with finished deliveries: ${delivered} delivered, ${failed} failed (${percent(
        delivered / (delivered + failed),
      )}); lowest ${percent(lowest!.successRatio)} (${bucketLabel(lowest!.start, bucket)}).`
    : `No finished deliveries in any of the ${points.length} ${bucket}s.`;
  return (
    <ChartFrame
      title={title}
      description={description}
      ticks={[
        { at: 0, label: '0%' },
        { at: 0.5, label: '50%' },
        { at: 1, label: '100%' },
      ]}
      bucket={bucket}
      span={points.length}
    >
      {points.map((p, i) =>
        p.successRatio === null ? null : (
          <rect
            key={p.start}
            className={p.successRatio >= 0.99 ? 'bar ok' : p.successRatio >= 0.9 ? 'bar warn' : 'bar bad'}
            x={LEFT + i * bw + 1}
            width={Math.max(bw - 2, 1)}
            y={TOP + (1 - p.successRatio) * PLOT_H - (p.successRatio === 0 ? 2 : 0)}
            height={Math.max(p.successRatio * PLOT_H, 2)}
          />
        ),
      )}
    </ChartFrame>
  );
}

/** Attempt latency per bucket: a p50 and a p99 line (points joined where neighbours have attempts). */
export function LatencyChart({ points, bucket, title }: { points: StatsPoint[]; bucket: 'hour' | 'day'; title: string }) {
  const bw = PLOT_W / Math.max(points.length, 1);
  const measured = points.filter((p) => p.p50DurationMs !== null);
  const max = niceCeiling(Math.max(1, ...measured.map((p) => p.p99DurationMs ?? p.p50DurationMs ?? 0)));
  const x = (i: number) => LEFT + i * bw + bw / 2;
  const y = (ms: number) => TOP + (1 - ms / max) * PLOT_H;
  const series = (pick: (p: StatsPoint) => number | null, name: 'p50' | 'p99') => {
    const segments: string[][] = [];
    let current: string[] = [];
    points.forEach((p, i) => {
      const v = pick(p);
      if (v === null) {
        if (current.length) segments.push(current);
        current = [];
        return;
      }
      current.push(`${x(i).toFixed(1)},${y(v).toFixed(1)}`);
    });
    if (current.length) segments.push(current);
    return (
      <g className={`line ${name}`}>
        {segments.map((s) => (
          <polyline key={s[0]} points={s.join(' ')} />
        ))}
        {points.map((p, i) => (pick(p) === null ? null : <circle key={p.start} cx={x(i)} cy={y(pick(p)!)} r={2.5} />))}
      </g>
    );
  };
  const worst = measured.reduce<StatsPoint | undefined>(
    (w, p) => (w === undefined || (p.p99DurationMs ?? 0) > (w.p99DurationMs ?? 0) ? p : w),
    undefined,
  );
  const latest = measured.at(-1);
  const description = measured.length
    ? `${measured.length} of ${points.length} ${bucket}s with attempts; latest p50 ${latest!.p50DurationMs} ms, p99 ${
        latest!.p99DurationMs
      } ms (${bucketLabel(latest!.start, bucket)}); highest p99 ${worst!.p99DurationMs} ms (${bucketLabel(worst!.start, bucket)}).`
    : `No attempts in any of the ${points.length} ${bucket}s.`;
  return (
    <ChartFrame
      title={title}
      description={description}
      ticks={[
        { at: 0, label: '0 ms' },
        { at: 0.5, label: `${max / 2} ms` },
        { at: 1, label: `${max} ms` },
      ]}
      bucket={bucket}
      span={points.length}
    >
      {series((p) => p.p99DurationMs, 'p99')}
      {series((p) => p.p50DurationMs, 'p50')}
      <g className="legend">
        <rect className="key p50" x={W - RIGHT - 92} y={TOP} width={10} height={4} />
        <text x={W - RIGHT - 78} y={TOP + 5}>
          p50
        </text>
        <rect className="key p99" x={W - RIGHT - 46} y={TOP} width={10} height={4} />
        <text x={W - RIGHT - 32} y={TOP + 5}>
          p99
        </text>
      </g>
    </ChartFrame>
  );
}

/** The series' numbers as a table (the buckets with deliveries or attempts), for screen readers and for copying. */
export function SeriesTable({ points, bucket, caption }: { points: StatsPoint[]; bucket: 'hour' | 'day'; caption: string }) {
  const rows = points.filter((p) => p.delivered + p.failed > 0 || p.p50DurationMs !== null);
  if (!rows.length) return <p className="hint">No deliveries or attempts in this window.</p>;
  return (
    <table className="series">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">{bucket === 'hour' ? 'Hour from' : 'Day from'}</th>
          <th scope="col">Delivered</th>
          <th scope="col">Failed</th>
          <th scope="col">Success rate</th>
          <th scope="col">p50 (ms)</th>
          <th scope="col">p99 (ms)</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((p) => (
          <tr key={p.start}>
            <th scope="row">
              <time dateTime={p.start}>{bucketLabel(p.start, bucket)}</time>
            </th>
            <td>{p.delivered}</td>
            <td>{p.failed}</td>
            <td>{percent(p.successRatio)}</td>
            <td>{p.p50DurationMs ?? '—'}</td>
            <td>{p.p99DurationMs ?? '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
