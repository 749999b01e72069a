import { useMemo, useState } from 'react';
import { get, post, qs } from '../../shared/api';
import { CodeOptions, ErrorBox, Field, PageHeader, StateBadge, useToast } from '../../shared/components';
import { DataTable } from '../../shared/DataTable';
import { EmptyState } from '../../shared/EmptyState';
import { FilterBar } from '../../shared/FilterBar';
import { fmtSince, fmtTime, fmtUntil, triggerSummary } from '../../shared/format';
import { useInterval, useLoad, useNow } from '../../shared/hooks';
import { useRunEvents } from '../../shared/live';
import type { Page, Run, Task, TaskSummary } from '../../shared/model';
import { isTerminal, RUN_STATES } from '../../shared/model';
import { Link, navigate } from '../../shared/router';
import { t } from '../../shared/i18n/i18n';
import { codeLabel } from '../../shared/labels';

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
  const groups = useLoad(() => get<Page<Task>>('/tasks?limit=500').then((p) => [...new Set(p.items.map((x) => x.group))].sort()), []);
  const summaries = useLoad(() => get<TaskSummary[]>('/ui/task-summaries'), []);
  useInterval(() => void tasks.reload(), 10_000);
  // A run of a task moved: refresh that task's last result.
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
  const rows = (tasks.data?.items ?? []).filter((x) => {
    if (!state) return true;
    const s = byTask.get(x.id);
    if (state === 'NEVER') return !s?.lastResult && !s?.lastRun;
    return s?.lastResult?.state === state || s?.lastRun?.state === state;
  });

  const filtered = Boolean(search.trim() || group || paused || state);

  const act = async (task: Task, action: 'pause' | 'resume' | 'trigger') => {
    try {
      if (action === 'trigger') {
        const run = await post<Run>(`/tasks/${task.id}/trigger`, {});
        toast.notify(t('Run #{{id}} of {{task}} created', { id: run.id, task: task.name }), 'info', { to: `/runs/${run.id}`, label: t('Open run #{{id}}', { id: run.id }) });
      } else {
        await post(`/tasks/${task.id}/${action}`);
        toast.notify(action === 'pause' ? t('{{task}} paused', { task: task.name }) : t('{{task}} resumed', { task: task.name }));
      }
      await tasks.reload();
    } catch (e) {
      toast.notify((e as Error).message, 'error');
    }
  };

  return (
    <>
      <PageHeader title={t('Tasks')}>
        {canWrite ? (
          <button type="button" className="btn-primary" onClick={() => navigate('/tasks/new')}>
            {t('New task')}
          </button>
        ) : null}
      </PageHeader>
      <FilterBar label={t('Filter tasks')}>
        <Field label={t('Search')}>{(p) => <input {...p} type="search" name="search" placeholder={t('Task name contains…')} value={search} onChange={(e) => setSearch(e.target.value)} />}</Field>
        <Field label={t('Group')}>
          {(p) => (
            <select {...p} name="group" value={group} onChange={(e) => setGroup(e.target.value)}>
              <option value="">{t('All groups')}</option>
              {(groups.data ?? []).map((g) => (
                <option key={g}>{g}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label={t('Last result')}>
          {(p) => (
            <select {...p} name="state" value={state} onChange={(e) => setState(e.target.value)}>
              <option value="">{t('Any')}</option>
              <CodeOptions codes={RUN_STATES} />
              <option value="NEVER">{t('Never ran')}</option>
            </select>
          )}
        </Field>
        <Field label={t('Paused')}>
          {(p) => (
            <select {...p} name="paused" value={paused} onChange={(e) => setPaused(e.target.value)}>
              <option value="">{t('Paused or active')}</option>
              <option value="false">{t('Active only')}</option>
              <option value="true">{t('Paused only')}</option>
            </select>
          )}
        </Field>
      </FilterBar>
      <ErrorBox error={tasks.error} />
      <DataTable
        label={t('Tasks')}
        rows={tasks.data ? rows : undefined}
        rowKey={(x) => x.id}
        rowProps={(x) => ({ 'data-task': x.name })}
        empty={
          filtered ? (
            <EmptyState title={t('No tasks match the filters.')}>{t('Clear the search or pick another group, result or status.')}</EmptyState>
          ) : (
            <EmptyState title={t('No tasks yet.')}>
              {canWrite ? (
                <>
                  {t('A task names the executor app and handler that run it, and when.')}{' '}
                  <button type="button" className="btn-primary btn-small" onClick={() => navigate('/tasks/new')}>
                    {t('New task')}
                  </button>
                </>
              ) : (
                t('A tenant admin creates them; they show here once saved.')
              )}
            </EmptyState>
          )
        }
        columns={[
          { header: t('Name'), cell: (x) => <Link to={`/tasks/${x.id}`} translate="no">{x.name}</Link> },
          { header: t('Group'), cell: (x) => x.group },
          { header: t('Trigger'), className: 'mono small', cell: (x) => triggerSummary(x.trigger) },
          { header: t('Next fire'), cellProps: (x) => ({ title: fmtTime(x.nextFireAt) }), cell: (x) => (x.paused ? t('paused') : fmtUntil(x.nextFireAt, now)) },
          { header: t('Last result'), cell: (x) => <LastResult summary={byTask.get(x.id)} now={now} /> },
          { header: t('Status'), cell: (x) => (x.paused ? <span className="badge paused">{t('paused')}</span> : <span className="badge active">{t('active')}</span>) },
          canWrite && {
            header: t('Actions'),
            className: 'actions',
            cell: (task) => (
              <>
                {task.paused ? (
                  <button type="button" className="btn-small" onClick={() => void act(task, 'resume')} aria-label={t('Resume {{task}}', { task: task.name })}>
                    {t('Resume')}
                  </button>
                ) : (
                  <button type="button" className="btn-small" onClick={() => void act(task, 'pause')} aria-label={t('Pause {{task}}', { task: task.name })}>
                    {t('Pause')}
                  </button>
                )}
                <button type="button" className="btn-small" onClick={() => void act(task, 'trigger')} aria-label={t('Run {{task}} now', { task: task.name })}>
                  {t('Run now')}
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
        <Link to={`/runs/${running.id}`} aria-label={t('Run {{id}} {{state}}', { id: running.id, state: codeLabel(running.state) })}>
          <StateBadge state={running.state} />
        </Link>
      ) : null}{' '}
      {last ? (
        <Link to={`/runs/${last.id}`} title={last.error ?? undefined} data-title-is-data aria-label={t('Last result: run {{id}} {{state}}', { id: last.id, state: codeLabel(last.state) })}>
          <StateBadge state={last.state} /> <span className="small muted">{fmtSince(last.finishedAt ?? last.scheduledAt, now)}</span>
        </Link>
      ) : running ? null : (
        <span className="muted">{t('never ran')}</span>
      )}
    </>
  );
}
