import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, LineController, LineElement, PointElement, Tooltip, type ChartConfiguration } from 'chart.js';
import { useEffect, useRef, useState } from 'react';
import { get, qs } from '../../shared/api';
import { ErrorBox, Field, PageHeader } from '../../shared/components';
import { EmptyState } from '../../shared/EmptyState';
import { FilterBar } from '../../shared/FilterBar';
import { fmtDuration, fmtPercent } from '../../shared/format';
import { useInterval, useLoad } from '../../shared/hooks';
import { RUN_STATES, type Page, type Stats, type StatsSeries, type Task } from '../../shared/model';
import { Link, navigate, useLocation } from '../../shared/router';
import { t } from '../../shared/i18n/i18n';

Chart.register(BarController, BarElement, LineController, LineElement, PointElement, CategoryScale, LinearScale, Legend, Tooltip);

const WINDOWS: Array<[number, number, string]> = [
  [15 * 60_000, 60_000, 'Last 15 minutes'],
  [3600_000, 60_000, 'Last hour'],
  [6 * 3600_000, 5 * 60_000, 'Last 6 hours'],
  [24 * 3600_000, 3600_000, 'Last 24 hours'],
  [7 * 24 * 3600_000, 6 * 3600_000, 'Last 7 days'],
];

/** "minute", "5 minutes", "hour", "6 hours". */
function widthLabel(ms: number): string {
  if (ms % 3600_000 === 0) return ms === 3600_000 ? 'hour' : `${ms / 3600_000} hours`;
  return ms === 60_000 ? 'minute' : `${Math.round(ms / 60_000)} minutes`;
}

const STATE_COLORS: Record<string, string> = {
  SUCCEEDED: '#2e7d32',
  FAILED: '#c62828',
  TIMED_OUT: '#ef6c00',
  CANCELLED: '#757575',
  SKIPPED: '#9e9e9e',
  RETRY_WAIT: '#f9a825',
  ACCEPTED: '#1565c0',
  DISPATCHED: '#42a5f5',
  CLAIMED: '#90caf9',
  PENDING: '#cfd8dc',
};

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
  const labels = buckets.map((b) => new Date(b.t).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', hour12: false }));
  const present = RUN_STATES.filter((s) => buckets.some((b) => (b.counts[s] ?? 0) > 0));
  const common = { responsive: true, maintainAspectRatio: false, animation: false as const, plugins: { legend: { position: 'bottom' as const } } };
  const runsChart: ChartConfiguration = {
    type: 'bar',
    data: { labels, datasets: present.map((s) => ({ label: s, data: buckets.map((b) => b.counts[s] ?? 0), backgroundColor: STATE_COLORS[s], stack: 'runs' })) },
    options: { ...common, scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true, title: { display: true, text: 'runs' } } } },
  };
  const rateChart: ChartConfiguration = {
    type: 'line',
    data: { labels, datasets: [{ label: 'success rate %', data: buckets.map((b) => (b.successRate === null ? null : b.successRate * 100)), borderColor: '#2e7d32', spanGaps: true }] },
    options: { ...common, scales: { y: { min: 0, max: 100, title: { display: true, text: '%' } } } },
  };
  const line = (a: 'duration' | 'lateness'): ChartConfiguration => ({
    type: 'line',
    data: {
      labels,
      datasets: [
        { label: `${a} p50 (ms)`, data: buckets.map((b) => b[`${a}P50`]), borderColor: '#1565c0', spanGaps: true },
        { label: `${a} p95 (ms)`, data: buckets.map((b) => b[`${a}P95`]), borderColor: '#ef6c00', spanGaps: true },
      ],
    },
    options: { ...common, scales: { y: { beginAtZero: true, title: { display: true, text: 'ms' } } } },
  });
  const s = summary.data;
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
                  Task {t.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label={t('Window')}>
          {(p) => (
            <select {...p} name="window" value={windowIdx} onChange={(e) => setWindowIdx(Number(e.target.value))}>
              {WINDOWS.map(([, , label], i) => (
                <option key={label} value={i}>
                  {label}
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
            <dd>{s.total}</dd>
          </div>
          <div className="card">
            <dt>{t('Success rate')}</dt>
            <dd>{fmtPercent(s.successRate)}</dd>
          </div>
          <div className="card" title={`Percentiles are estimated from fixed buckets: at most ${Math.round(s.percentileError * 100)} % above the exact figure`}>
            <dt>{t('Duration p50 / p95')}</dt>
            <dd>
              {fmtDuration(s.durationMs.p50)} / {fmtDuration(s.durationMs.p95)}
            </dd>
          </div>
          <div className="card">
            <dt>{t('Lateness p50 / p95')}</dt>
            <dd>
              {fmtDuration(s.latenessMs.p50)} / {fmtDuration(s.latenessMs.p95)}
            </dd>
          </div>
          <div className="card" title={t('Runs on a retry attempt: how long their backoff made them wait (not counted as lateness)')}>
            <dt>{t('Retry wait p50 / p95')}</dt>
            <dd>
              {s.retryWaitMs.count ? `${fmtDuration(s.retryWaitMs.p50)} / ${fmtDuration(s.retryWaitMs.p95)}` : '—'}
            </dd>
          </div>
        </dl>
      ) : null}
      {s?.total === 0 ? (
        <EmptyState title={`No run ended in the ${WINDOWS[windowIdx][2].toLowerCase()}${taskId ? ' for this task' : ''}.`}>
          Pick a longer window, or run a task now from <Link to="/tasks">{t('Tasks')}</Link>; its figures show here once it ends.
        </EmptyState>
      ) : (
        <div className="charts">
          <ChartBox label={`Runs per ${widthLabel(series.data?.bucketMs ?? bucketMs)} by state (when they ended)`} config={runsChart} />
          <ChartBox label={t('Success rate over time')} config={rateChart} />
          <ChartBox label={t('Duration p50 / p95 over time')} config={line('duration')} />
          <ChartBox label={t('Lateness p50 / p95 over time (dispatch − scheduled)')} config={line('lateness')} />
        </div>
      )}
    </>
  );
}
