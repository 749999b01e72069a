import { useMemo, useState } from 'react';
import { get, post, qs } from '../api';
import { ErrorBox, Field, PageHeader, StateBadge, useToast } from '../components';
import { DataTable } from '../DataTable';
import { EmptyState } from '../EmptyState';
import { FilterBar } from '../FilterBar';
import { fmtAgo, fmtTime, triggerSummary } from '../format';
import { useInterval, useLoad, useNow } from '../hooks';
import { useRunEvents } from '../live';
import type { Page, Run, Task, TaskSummary } from '../model';
import { isTerminal, RUN_STATES } from '../model';
import { Link, navigate } from '../router';

export function TasksPage({ canWrite }: { canWrite: boolean }) {
  const [search, setSearch] = useState('');
  const [group, setGroup] = useState('');
  const [paused, setPaused] = useState('');
  const [state, setState] = useState('');
  const toast = useToast();
  const now = useNow(5000);
  const tasks = useLoad(
    () => get<Page<Task>>(`/tasks${qs({ search: search.trim(), group, paused: paused === '' ? undefined : paused, limit: 500 })}`),
    [search, group, paused],
  );
  const groups = useLoad(() => get<Page<Task>>('/tasks?limit=500').then((p) => [...new Set(p.items.map((t) => t.group))].sort()), []);
  const summaries = useLoad(() => get<TaskSummary[]>('/ui/task-summaries'), []);
  useInterval(() => void tasks.reload(), 10_000);
  // A run of a task moved: refresh that task's last result (and nextFireAt, which the planner advances).
  useRunEvents((run: Run) => {
    summaries.set((list) => {
      if (!list) return list;
      const finished = isTerminal(run.state);
      const view = { id: run.id, state: run.state, scheduledAt: run.scheduledAt, finishedAt: run.finishedAt, error: run.error };
      let found = false;
      const next = list.map((s) => {
        if (s.taskId !== run.taskId) return s;
        found = true;
        const newer = (cur: { scheduledAt: number; id: number } | null) => !cur || run.scheduledAt > cur.scheduledAt || (run.scheduledAt === cur.scheduledAt && run.id >= cur.id);
        return {
          ...s,
          lastRun: run.state !== 'PENDING' && run.state !== 'CLAIMED' && newer(s.lastRun) ? view : s.lastRun,
          lastResult: finished && newer(s.lastResult) ? view : s.lastResult,
        };
      });
      return found ? next : [...next, { taskId: run.taskId, lastRun: view, lastResult: finished ? view : null }];
    });
  });
  const byTask = useMemo(() => new Map((summaries.data ?? []).map((s) => [s.taskId, s])), [summaries.data]);
  const rows = (tasks.data?.items ?? []).filter((t) => {
    if (!state) return true;
    const s = byTask.get(t.id);
    if (state === 'NEVER') return !s?.lastResult && !s?.lastRun;
    return s?.lastResult?.state === state || s?.lastRun?.state === state;
  });

  const filtered = Boolean(search.trim() || group || paused || state);

  const act = async (task: Task, action: 'pause' | 'resume' | 'trigger') => {
    try {
      if (action === 'trigger') {
        const run = await post<Run>(`/tasks/${task.id}/trigger`, {});
        toast.notify(`Run #${run.id} of ${task.name} created`, 'info', { to: `/runs/${run.id}`, label: `Open run #${run.id}` });
      } else {
        await post(`/tasks/${task.id}/${action}`);
        toast.notify(`${task.name} ${action === 'pause' ? 'paused' : 'resumed'}`);
      }
      await tasks.reload();
    } catch (e) {
      toast.notify((e as Error).message, 'error');
    }
  };

  return (
    <>
      <PageHeader title="Tasks">
        {canWrite ? (
          <button type="button" className="btn-primary" onClick={() => navigate('/tasks/new')}>
            New task
          </button>
        ) : null}
      </PageHeader>
      <FilterBar label="Filter tasks">
        <Field label="Search">{(p) => <input {...p} type="search" name="search" placeholder="Task name contains…" value={search} onChange={(e) => setSearch(e.target.value)} />}</Field>
        <Field label="Group">
          {(p) => (
            <select {...p} name="group" value={group} onChange={(e) => setGroup(e.target.value)}>
              <option value="">All groups</option>
              {(groups.data ?? []).map((g) => (
                <option key={g}>{g}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Last result">
          {(p) => (
            <select {...p} name="state" value={state} onChange={(e) => setState(e.target.value)}>
              <option value="">Any</option>
              {RUN_STATES.map((s) => (
                <option key={s}>{s}</option>
              ))}
              <option value="NEVER">Never ran</option>
            </select>
          )}
        </Field>
        <Field label="Paused">
          {(p) => (
            <select {...p} name="paused" value={paused} onChange={(e) => setPaused(e.target.value)}>
              <option value="">Paused or active</option>
              <option value="false">Active only</option>
              <option value="true">Paused only</option>
            </select>
          )}
        </Field>
      </FilterBar>
      <ErrorBox error={tasks.error} />
      <DataTable
        label="Tasks"
        rows={tasks.data ? rows : undefined}
        rowKey={(t) => t.id}
        rowProps={(t) => ({ 'data-task': t.name })}
        empty={
          filtered ? (
            <EmptyState title="No tasks match the filters.">Clear the search or pick another group, result or status.</EmptyState>
          ) : (
            <EmptyState title="No tasks yet.">
              {canWrite ? (
                <>
                  A task names the executor app and handler that run it, and when.{' '}
                  <button type="button" className="btn-primary btn-small" onClick={() => navigate('/tasks/new')}>
                    New task
                  </button>
                </>
              ) : (
                'A tenant admin creates them; they show here once saved.'
              )}
            </EmptyState>
          )
        }
        columns={[
          { header: 'Name', cell: (t) => <Link to={`/tasks/${t.id}`}>{t.name}</Link> },
          { header: 'Group', cell: (t) => t.group },
          { header: 'Trigger', className: 'mono small', cell: (t) => triggerSummary(t.trigger) },
          { header: 'Next fire', cellProps: (t) => ({ title: fmtTime(t.nextFireAt) }), cell: (t) => (t.paused ? 'paused' : t.nextFireAt ? fmtAgo(t.nextFireAt, now) : '—') },
          { header: 'Last result', cell: (t) => <LastResult summary={byTask.get(t.id)} now={now} /> },
          { header: 'Status', cell: (t) => (t.paused ? <span className="badge paused">paused</span> : <span className="badge active">active</span>) },
          canWrite && {
            header: 'Actions',
            className: 'actions',
            cell: (t) => (
              <>
                {t.paused ? (
                  <button type="button" className="btn-small" onClick={() => void act(t, 'resume')} aria-label={`Resume ${t.name}`}>
                    Resume
                  </button>
                ) : (
                  <button type="button" className="btn-small" onClick={() => void act(t, 'pause')} aria-label={`Pause ${t.name}`}>
                    Pause
                  </button>
                )}
                <button type="button" className="btn-small" onClick={() => void act(t, 'trigger')} aria-label={`Run ${t.name} now`}>
                  Run now
                </button>
              </>
            ),
          },
        ]}
      />
    </>
  );
}

/** The task's run in flight (if any) and its last finished run. */
function LastResult({ summary, now }: { summary: TaskSummary | undefined; now: number }) {
  const last = summary?.lastResult;
  const running = summary?.lastRun && !isTerminal(summary.lastRun.state) ? summary.lastRun : null;
  return (
    <>
      {running ? (
        <Link to={`/runs/${running.id}`} aria-label={`Run ${running.id} ${running.state}`}>
          <StateBadge state={running.state} />
        </Link>
      ) : null}{' '}
      {last ? (
        <Link to={`/runs/${last.id}`} title={last.error ?? undefined} aria-label={`Last result: run ${last.id} ${last.state}`}>
          <StateBadge state={last.state} /> <span className="small muted">{fmtAgo(last.finishedAt ?? last.scheduledAt, now)}</span>
        </Link>
      ) : running ? null : (
        <span className="muted">never ran</span>
      )}
    </>
  );
}
