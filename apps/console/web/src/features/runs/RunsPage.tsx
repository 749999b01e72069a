import { useState } from 'react';
import { get, qs } from '../../shared/api';
import { CodeOptions, ErrorBox, Field, PageHeader, StateBadge } from '../../shared/components';
import { DataTable } from '../../shared/DataTable';
import { EmptyState } from '../../shared/EmptyState';
import { FilterBar } from '../../shared/FilterBar';
import { fmtDuration, fromLocalInput } from '../../shared/format';
import { useLoad } from '../../shared/hooks';
import { useLive, useRunEvents } from '../../shared/live';
import { ACTIVE_STATES, RUN_STATES, type Page, type Run, type Task } from '../../shared/model';
import { Link, navigate, useLocation } from '../../shared/router';
import { t } from '../../shared/i18n/i18n';
import { codeLabel } from '../../shared/labels';
import { Time } from '../../shared/components';
import { BulkBar, SelectAll } from './BulkBar';

const STATE_GROUPS: Record<string, readonly string[]> = {
  ACTIVE: ACTIVE_STATES,
  PROBLEMS: ['FAILED', 'TIMED_OUT'],
};

/** Most rows an open runs page keeps while live runs arrive: the oldest go, so a page left open all day stays small. */
const MAX_LIVE_ROWS = 500;

function byScheduledDesc(a: Run, b: Run): number {
  return b.scheduledAt - a.scheduledAt || b.id - a.id;
}

export function RunsPage({ canWrite }: { canWrite: boolean }) {
  const { search } = useLocation();
  const taskId = search.get('taskId') ?? '';
  const state = search.get('state') ?? '';
  const [from, setFrom] = useState(search.get('from') ?? '');
  const [to, setTo] = useState(search.get('to') ?? '');
  const live = useLive();
  const setParam = (key: string, value: string) => {
    const p = new URLSearchParams(location.search);
    if (value) p.set(key, value);
    else p.delete(key);
    navigate(`/runs${p.toString() ? `?${p}` : ''}`, true);
  };
  const states = state ? (STATE_GROUPS[state] ?? [state]) : [];
  const fromMs = fromLocalInput(from);
  const toMs = fromLocalInput(to);
  const tasks = useLoad(() => get<Page<Task>>('/tasks?limit=500'), []);
  const runs = useLoad(() => get<Page<Run>>(`/runs${qs({ taskId, state: states, from: fromMs, to: toMs, limit: 100 })}`), [taskId, state, fromMs, toMs]);
  const [changed, setChanged] = useState<Record<number, number>>({});
  const [trimmed, setTrimmed] = useState(false);
  const [selected, setSelected] = useState<ReadonlySet<number>>(new Set());
  const toggle = (id: number, on: boolean) => setSelected((cur) => { const next = new Set(cur); if (on) next.add(id); else next.delete(id); return next; });

  const matches = (r: Run) =>
    (!taskId || r.taskId === Number(taskId)) && (states.length === 0 || states.includes(r.state)) && (fromMs === null || r.scheduledAt >= fromMs) && (toMs === null || r.scheduledAt < toMs);

  // Live: a run's change arrives over socket.io and updates its row in place (or adds it).
  useRunEvents((run) => {
    runs.set((page) => {
      if (!page) return page;
      const i = page.items.findIndex((r) => r.id === run.id);
      if (i >= 0) {
        if (page.items[i].updatedAt > run.updatedAt) return page;
        const items = matches(run) ? page.items.map((r, j) => (j === i ? run : r)) : page.items.filter((_, j) => j !== i);
        return { ...page, items };
      }
      if (!matches(run)) return page;
      const oldest = page.items[page.items.length - 1];
      if (page.nextCursor && oldest && byScheduledDesc(run, oldest) > 0) return page; // older than the loaded page
      const items = [...page.items, run].sort(byScheduledDesc);
      if (items.length <= MAX_LIVE_ROWS) return { ...page, items };
      // The oldest rows go; "Load more" would then skip them, so paging on starts from a reload.
      setTrimmed(true);
      return { items: items.slice(0, MAX_LIVE_ROWS), nextCursor: null };
    });
    const now = Date.now();
    // Only the last few seconds' changes flash: older marks are dropped, not kept for ever.
    setChanged((c) => ({ ...Object.fromEntries(Object.entries(c).filter(([, at]) => now - at < 2000)), [run.id]: now }));
  });

  const loadMore = async () => {
    if (!runs.data?.nextCursor) return;
    const more = await get<Page<Run>>(`/runs${qs({ taskId, state: states, from: fromMs, to: toMs, limit: 100, cursor: runs.data.nextCursor })}`);
    runs.set((page) => (page ? { items: [...page.items, ...more.items.filter((m) => !page.items.some((r) => r.id === m.id))], nextCursor: more.nextCursor } : more));
  };

  return (
    <>
      <PageHeader title={t('Runs')}>
        <span className="muted small" aria-live="polite">
          {live.connected ? t('States update live') : t('Live updates offline')}
        </span>
      </PageHeader>
      <FilterBar label={t('Filter runs')}>
        <Field label={t('Task')}>
          {(p) => (
            <select {...p} name="taskId" value={taskId} onChange={(e) => setParam('taskId', e.target.value)}>
              <option value="">{t('All tasks')}</option>
              {(tasks.data?.items ?? []).map((x) => (
                <option key={x.id} value={x.id}>
                  {x.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label={t('State')}>
          {(p) => (
            <select {...p} name="state" value={state} onChange={(e) => setParam('state', e.target.value)}>
              <option value="">{t('Any state')}</option>
              <option value="ACTIVE">{t('Active (not finished)')}</option>
              <option value="PROBLEMS">{t('Failed or timed out')}</option>
              <CodeOptions codes={RUN_STATES} />
            </select>
          )}
        </Field>
        <Field label={t('Scheduled from')}>{(p) => <input {...p} name="from" type="datetime-local" value={from} onChange={(e) => setFrom(e.target.value)} />}</Field>
        <Field label={t('Scheduled before')}>{(p) => <input {...p} name="to" type="datetime-local" value={to} onChange={(e) => setTo(e.target.value)} />}</Field>
        <div className="field field-button">
          <Link to="/runs/search" className="btn">
            {t('Search errors and params…')}
          </Link>
        </div>
      </FilterBar>
      {canWrite ? <BulkBar selected={selected} onDone={() => (setSelected(new Set()), void runs.reload())} /> : null}
      <ErrorBox error={runs.error} />
      <DataTable
        label={t('Runs')}
        rows={runs.data?.items}
        rowKey={(r) => r.id}
        rowProps={(r) => ({ 'data-run-id': r.id, 'data-state': r.state, className: changed[r.id] && Date.now() - changed[r.id] < 1500 ? 'flash' : undefined })}
        empty={
          taskId || state || from || to ? (
            <EmptyState title={t('No runs match the filters.')}>{t('Pick another task or state, or widen the time range.')}</EmptyState>
          ) : (
            <EmptyState title={t('No runs yet.')}>
              {t('Runs appear here as their tasks fire; run a task now from')} <Link to="/tasks">{t('Tasks')}</Link> ({t('Run now')}).
            </EmptyState>
          )
        }
        columns={[
          canWrite && {
            header: <SelectAll rows={runs.data?.items ?? []} selected={selected} onChange={setSelected} />,
            cell: (r) => (
              <input type="checkbox" className="row-check" checked={selected.has(r.id)} onChange={(e) => toggle(r.id, e.target.checked)} aria-label={t('Select run {{id}}', { id: r.id })} data-select-run={r.id} />
            ),
          },
          { header: t('Run'), cell: (r) => <Link to={`/runs/${r.id}`}>#{r.id}</Link> },
          { header: t('Task'), cell: (r) => (r.taskName ? <span translate="no">{r.taskName}</span> : <span className="muted">{t('deleted task {{id}}', { id: r.taskId })}</span>) },
          { header: t('State'), cell: (r) => <StateBadge state={r.state} /> },
          {
            header: t('Cause'),
            // A shard names its place and its fan-out run; the run itself lists its shards.
            cell: (r) =>
              r.cause === 'SHARD' ? (
                <>
                  {t('Shard {{index}} of', { index: r.shardIndex })} <Link to={`/runs/${r.parentRunId}`}>#{r.parentRunId}</Link>
                </>
              ) : (
                codeLabel(r.cause)
              ),
          },
          { header: t('Attempt'), cell: (r) => r.attempt },
          { header: t('Scheduled'), className: 'small', cell: (r) => <Time ms={r.scheduledAt} /> },
          { header: t('Lateness'), className: 'small', cellProps: () => ({ title: t('Of the first attempt: dispatch − scheduled, or − when its own rate or concurrency key let it go (neither that wait nor a retry’s backoff is lateness)') }), cell: (r) => (r.latenessMs === null ? '—' : fmtDuration(r.latenessMs)) },
          { header: t('Duration'), className: 'small', cell: (r) => (r.startedAt && r.finishedAt ? fmtDuration(r.finishedAt - r.startedAt) : '—') },
        ]}
      />
      {runs.data?.nextCursor ? (
        <button type="button" onClick={() => void loadMore()}>
          {t('Load more')}
        </button>
      ) : null}
      {trimmed ? (
        <p className="muted small" data-runs-trimmed>
          {t('Showing the newest {{count}} runs: older ones left this live view. Reload the page to page through them.', { count: MAX_LIVE_ROWS })}
        </p>
      ) : null}
    </>
  );
}
