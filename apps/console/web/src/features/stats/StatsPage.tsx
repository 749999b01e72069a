import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, LineController, LineElement, PointElement, Tooltip, type ChartConfiguration } from 'chart.js';
import { useEffect, useRef, useState } from 'react';
import { get, qs } from '../../shared/api';
import { ErrorBox, Field, PageHeader } from '../../shared/components';
import { EmptyState } from '../../shared/EmptyState';
import { FilterBar } from '../../shared/FilterBar';
import { displayTimeZone, fmtDuration, fmtNumber, fmtPercent } from '../../shared/format';
import { useInterval, useLoad } from '../../shared/hooks';
import { RUN_STATES, type Page, type Stats, type StatsSeries, type Task } from '../../shared/model';
import { Link, navigate, useLocation } from '../../shared/router';
import { t } from '../../shared/i18n/i18n';
import { codeLabel } from '../../shared/labels';
import { usePreferences } from '../../shared/preferences';
import { chartPalette, themed } from './chart-theme';

Chart.register(BarController, BarElement, LineController, LineElement, PointElement, CategoryScale, LinearScale, Legend, Tooltip);

const WINDOWS: Array<[number, number, () => string]> = [
  [15 * 60_000, 60_000, () => t('Last 15 minutes')],
  [3600_000, 60_000, () => t('Last hour')],
  [6 * 3600_000, 5 * 60_000, () => t('Last 6 hours')],
  [24 * 3600_000, 3600_000, () => t('Last 24 hours')],
  [7 * 24 * 3600_000, 6 * 3600_000, () => t('Last 7 days')],
];

/** "Runs per minute by state…", "Runs per 5 minutes…", "…per hour…", "…per 6 hours…". */
function runsChartLabel(ms: number): string {
  if (ms === 3600_000) return t('Runs per hour by state (when they ended)');
  if (ms % 3600_000 === 0) return t('Runs per {{count}} hours by state (when they ended)', { count: ms / 3600_000 });
  if (ms === 60_000) return t('Runs per minute by state (when they ended)');
  return t('Runs per {{count}} minutes by state (when they ended)', { count: Math.round(ms / 60_000) });
}

function ChartBox({ label, config }: { label: string; config: ChartConfiguration }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const chart = useRef<Chart | null>(null);
  useEffect(() => {
    if (!canvas.current) return;
    chart.current = new Chart(canvas.current, config);
    return () => {
      chart.current?.destroy();
      chart.current = null;
    };
  }, []); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    if (!chart.current) return;
    chart.current.data = config.data;
    // The options carry the theme's colours: a theme switched while the page is open repaints.
    if (config.options) chart.current.options = config.options;
    chart.current.update('none');
  }, [config]);
  return (
    <figure className="chart card">
      <figcaption>{label}</figcaption>
      <div className="chart-canvas">
        <canvas ref={canvas} role="img" aria-label={label} />
      </div>
    </figure>
  );
}

export function StatsPage() {
  const { search } = useLocation();
  const taskId = search.get('taskId') ?? '';
  const [windowIdx, setWindowIdx] = useState(1);
  const [windowMs, bucketMs] = WINDOWS[windowIdx];
  const tasks = useLoad(() => get<Page<Task>>('/tasks?limit=500'), []);
  const summary = useLoad(() => get<Stats>(taskId ? `/tasks/${taskId}/stats${qs({ windowMs })}` : `/stats${qs({ windowMs })}`), [taskId, windowMs]);
  const series = useLoad(() => get<StatsSeries>(`/ui/stats-series${qs({ windowMs, bucketMs, taskId })}`), [taskId, windowMs, bucketMs]);
  useInterval(() => {
    void summary.reload();
    void series.reload();
  }, 10_000);

  const buckets = series.data?.buckets ?? [];
  const clock = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: displayTimeZone() });
  const labels = buckets.map((b) => clock.format(new Date(b.t)));
  const { theme } = usePreferences().prefs;
  const palette = chartPalette(theme);
  const present = RUN_STATES.filter((s) => buckets.some((b) => (b.counts[s] ?? 0) > 0));
  // A defect, so drawn only when there is one: a line over the bars, outside their stack.
  const early = buckets.some((b) => b.earlyStarts > 0)
    ? [{ type: 'line' as const, label: t('early starts'), data: buckets.map((b) => b.earlyStarts), borderColor: palette.states.FAILED, backgroundColor: palette.states.FAILED, stack: 'early' }]
    : [];
  const common = { responsive: true, maintainAspectRatio: false, animation: false as const, plugins: { legend: { position: 'bottom' as const } } };
  const runsChart: ChartConfiguration = {
    type: 'bar',
    data: { labels, datasets: [...present.map((s) => ({ label: codeLabel(s), data: buckets.map((b) => b.counts[s] ?? 0), backgroundColor: palette.states[s], stack: 'runs' })), ...early] },
    options: themed({ ...common, scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true, title: { display: true, text: t('runs') } } } }, palette),
  };
  const rateChart: ChartConfiguration = {
    type: 'line',
    data: { labels, datasets: [{ label: t('success rate %'), data: buckets.map((b) => (b.successRate === null ? null : b.successRate * 100)), borderColor: palette.line.rate, spanGaps: true }] },
    options: themed({ ...common, scales: { x: {}, y: { min: 0, max: 100, title: { display: true, text: '%' } } } }, palette),
  };
  const line = (a: 'duration' | 'lateness'): ChartConfiguration => ({
    type: 'line',
    data: {
      labels,
      datasets: [
        { label: a === 'duration' ? t('duration p50 (ms)') : t('lateness p50 (ms)'), data: buckets.map((b) => b[`${a}P50`]), borderColor: palette.line.p50, spanGaps: true },
        { label: a === 'duration' ? t('duration p95 (ms)') : t('lateness p95 (ms)'), data: buckets.map((b) => b[`${a}P95`]), borderColor: palette.line.p95, spanGaps: true },
      ],
    },
    options: themed({ ...common, scales: { x: {}, y: { beginAtZero: true, title: { display: true, text: 'ms' } } } }, palette),
  });
  const s = summary.data;
  // Percentiles come from fixed buckets: each figure is the bound of its bucket, so the exact
  // value is at most that (a p95 of 6.02 s when the longest run took 5.00 s is that bound).
  const bound = s ? t('p50 and p95 are upper bounds: estimated from fixed buckets, each is at most {{error}} % above the exact figure (so a p95 may exceed the longest run).', { error: Math.round(s.percentileError * 100) }) : '';
  const upTo = (ms: number | null) => (ms === null ? '—' : `≤ ${fmtDuration(ms)}`);
  return (
    <>
      <PageHeader title={t('Statistics')} />
      <FilterBar label={t('Statistics scope')}>
        <Field label={t('Scope')}>
          {(p) => (
            <select {...p} name="taskId" value={taskId} onChange={(e) => navigate(`/stats${e.target.value ? `?taskId=${e.target.value}` : ''}`, true)}>
              <option value="">{t('Whole tenant')}</option>
              {(tasks.data?.items ?? []).map((x) => (
                <option key={x.id} value={x.id}>
                  {t('Task {{name}}', { name: x.name })}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label={t('Window')}>
          {(p) => (
            <select {...p} name="window" value={windowIdx} onChange={(e) => setWindowIdx(Number(e.target.value))}>
              {WINDOWS.map(([ms, , label], i) => (
                <option key={ms} value={i}>
                  {label()}
                </option>
              ))}
            </select>
          )}
        </Field>
      </FilterBar>
      <ErrorBox error={summary.error ?? series.error} />
      {s ? (
        <dl className="kpis" aria-label={t('Summary')}>
          <div className="card">
            <dt>{t('Runs')}</dt>
            <dd>{fmtNumber(s.total)}</dd>
          </div>
          <div className="card">
            <dt>{t('Success rate')}</dt>
            <dd>{fmtPercent(s.successRate)}</dd>
          </div>
          <div className="card" title={bound}>
            <dt>{t('Duration p50 / p95')}</dt>
            <dd data-kpi="duration">
              {upTo(s.durationMs.p50)} / {upTo(s.durationMs.p95)}
            </dd>
          </div>
          <div className="card" title={bound}>
            <dt>{t('Lateness p50 / p95')}</dt>
            <dd data-kpi="lateness">
              {upTo(s.latenessMs.p50)} / {upTo(s.latenessMs.p95)}
            </dd>
          </div>
          <div className="card" title={t('Runs whose handler started more than 20 ms before their instant: a defect, each one also raised as a RUN_STARTED_EARLY alarm')}>
            <dt>{t('Early starts')}</dt>
            <dd data-kpi="early-starts">{fmtNumber(s.earlyStarts)}</dd>
          </div>
          <div className="card" title={t('Runs on a retry attempt: how long their backoff made them wait (not counted as lateness)')}>
            <dt>{t('Retry wait p50 / p95')}</dt>
            <dd>
              {s.retryWaitMs.count ? `${upTo(s.retryWaitMs.p50)} / ${upTo(s.retryWaitMs.p95)}` : '—'}
            </dd>
          </div>
        </dl>
      ) : null}
      {s ? (
        <p className="small muted" data-percentile-note>
          {bound}
        </p>
      ) : null}
      {s?.total === 0 ? (
        <EmptyState title={taskId ? t('No run of this task ended in this window ({{window}}).', { window: WINDOWS[windowIdx][2]() }) : t('No run ended in this window ({{window}}).', { window: WINDOWS[windowIdx][2]() })}>
          {t('Pick a longer window, or run a task now from')} <Link to="/tasks">{t('Tasks')}</Link>
          {t('; its figures show here once it ends.')}
        </EmptyState>
      ) : (
        <div className="charts">
          <ChartBox label={runsChartLabel(series.data?.bucketMs ?? bucketMs)} config={runsChart} />
          <ChartBox label={t('Success rate over time')} config={rateChart} />
          <ChartBox label={t('Duration p50 / p95 over time')} config={line('duration')} />
          <ChartBox label={t('Lateness p50 / p95 over time (dispatch − scheduled)')} config={line('lateness')} />
        </div>
      )}
    </>
  );
}
