import { useEffect, useRef } from 'react';
import { get, isNotFound, post, qs } from '../../shared/api';
import { ErrorBox, PageHeader, StateBadge, useToast } from '../../shared/components';
import { DataTable } from '../../shared/DataTable';
import { EmptyState } from '../../shared/EmptyState';
import { t } from '../../shared/i18n/i18n';
import { codeLabel } from '../../shared/labels';
import { useLoad } from '../../shared/hooks';
import { NotFound } from '../../shared/NotFound';
import { useLive, useRunEvents } from '../../shared/live';
import { isTerminal, type Dependency, type Page, type Run, type RunAttempts, type RunDetail } from '../../shared/model';
import { ApprovalSection } from './ApprovalSection';
import { AttemptsSection } from './AttemptsSection';
import { Link } from '../../shared/router';

export function RunDetailPage({ runId, canWrite }: { runId: number; canWrite: boolean }) {
  const toast = useToast();
  const run = useLoad(() => get<RunDetail>(`/runs/${runId}`), [runId]);
  const children = useLoad(async () => {
    const r = run.data;
    if (!r) return [] as Run[];
    const edges = await get<Dependency[]>(`/dependencies${qs({ taskId: r.taskId })}`);
    const childTasks = edges.filter((e) => e.parentTaskId === r.taskId).map((e) => e.childTaskId);
    const pages = await Promise.all(childTasks.map((x) => get<Page<Run>>(`/runs${qs({ taskId: x, cause: 'DEPENDENCY', limit: 100 })}`)));
    return pages.flatMap((p) => p.items).filter((c) => c.parentRunId === r.id);
  }, [run.data?.id, run.data?.state]);
  // A fan-out run's shards (BROADCAST / SHARDED task), by index.
  const shards = useLoad(async () => {
    const r = run.data;
    if (!r || r.cause === 'SHARD' || r.shardTotal === null) return [] as Run[];
    const page = await get<Page<Run>>(`/runs${qs({ parentRunId: r.id, cause: 'SHARD', limit: 500 })}`);
    return page.items.sort((a, b) => (a.shardIndex ?? 0) - (b.shardIndex ?? 0));
  }, [run.data?.id, run.data?.shardTotal]);

  // Live: the lines its handler writes while it runs (the SDK sends them about once a second)…
  const { watchRunLogs } = useLive();
  const newestLog = useRef(0);
  newestLog.current = run.data?.logs.reduce((max, l) => Math.max(max, l.id), 0) ?? 0;
  const loaded = run.data !== undefined && run.data !== null;
  const setRun = run.set; // React's state setter: stable
  useEffect(() => {
    if (!loaded) return;
    return watchRunLogs(
      runId,
      () => newestLog.current,
      (lines) =>
        setRun((cur) => {
          if (!cur) return cur;
          const known = new Set(cur.logs.map((l) => l.id));
          const fresh = lines.filter((l) => !known.has(l.id));
          return fresh.length ? { ...cur, logs: [...cur.logs, ...fresh].sort((a, b) => a.id - b.id) } : cur;
        }),
    );
  }, [runId, loaded, watchRunLogs, setRun]);

  // …and its changes (and its children's); reload the detail for its final state.
  useRunEvents((r) => {
    if (r.id === runId) {
      run.set((cur) => (cur && cur.updatedAt <= r.updatedAt ? { ...cur, ...r } : cur));
      void run.reload();
    } else if (r.parentRunId === runId) void (r.cause === 'SHARD' ? shards.reload() : children.reload());
  });

  const cancel = async () => {
    // Cancelling aborts the handler where it is: asked once, so a stray click does not.
    if (!window.confirm(t('Cancel run #{{id}}? Its handler is aborted where it is.', { id: runId }))) return;
    try {
      await post(`/runs/${runId}/cancel`);
      await run.reload();
    } catch (e) {
      toast.notify((e as Error).message, 'error');
    }
  };

  const r = run.data;
  // A run not ended keeps in `error` why it waits (a rate key's token, a dispatch deferred, a failed attempt's retry): not its result.
  const waiting = !!r && !isTerminal(r.state) && r.error !== null;
  const errorDetail = r?.errorDetail ? (
    <details className="error-detail">
      <summary>{t('Stack and details')}</summary>
      <pre className="mono small">{r.errorDetail}</pre>
    </details>
  ) : null;
  const attempts = useLoad(() => get<RunAttempts>(`/runs/${runId}/attempts`), [runId, r?.attempt, r?.state]);
  const rerun = async () => {
    try {
      const again = await post<Run>(`/runs/${runId}/rerun`);
      toast.notify(t('Run #{{id}} created', { id: again.id }), 'info', { to: `/runs/${again.id}`, label: t('Open run #{{id}}', { id: again.id }) });
    } catch (e) {
      toast.notify((e as Error).message, 'error');
    }
  };
  if (isNotFound(run.error)) {
    return (
      <NotFound title={t('Run #{{id}} not found', { id: runId })}>
        {t('Your tenant has no run #{{id}}.', { id: runId })} <Link to="/runs">{t('All runs')}</Link>
      </NotFound>
    );
  }
  return (
    <>
      <PageHeader title={t('Run #{{id}}', { id: runId })}>
        {r ? (
          <a className="btn" href={`/api/runs/${runId}/log`} download={`run-${runId}.log`} data-download-log>
            {t('Download log')}
          </a>
        ) : null}
        {r && canWrite && isTerminal(r.state) && r.cause !== 'SHARD' && r.taskName ? (
          <button type="button" onClick={() => void rerun()}>
            {t('Run again')}
          </button>
        ) : null}
        {r && canWrite && !isTerminal(r.state) ? (
          <button type="button" className="btn-danger" onClick={() => void cancel()}>
            {t('Cancel run')}
          </button>
        ) : null}
      </PageHeader>
      <ErrorBox error={run.error} />
      {r ? (
        <>
          <dl className="facts">
            <div>
              <dt>{t('Task')}</dt>
              <dd>{r.taskName ? <Link to={`/tasks/${r.taskId}`} translate="no">{r.taskName}</Link> : t('deleted task {{id}}', { id: r.taskId })}</dd>
            </div>
            <div>
              <dt>{t('State')}</dt>
              <dd data-run-state={r.state}>
                <StateBadge state={r.state} />
                {r.progress !== null && r.state === 'ACCEPTED' ? <progress max={100} value={r.progress} aria-label={t('Progress')} /> : null}
              </dd>
            </div>
            <div>
              <dt>{t('Cause')}</dt>
              <dd>{codeLabel(r.cause)}</dd>
            </div>
            {r.withdrawal ? (
              <div>
                <dt>{t('Withdrawn')}</dt>
                <dd data-run-withdrawal={r.withdrawal}>{withdrawalText(r.withdrawal)}</dd>
              </div>
            ) : null}
            <div>
              <dt>{t('Attempt')}</dt>
              <dd>{r.attempt}</dd>
            </div>
            <div>
              <dt>{t('Executor')}</dt>
              <dd data-run-executor>
                {r.executor ? (
                  <Link to="/executors" title={t('Executor #{{id}}', { id: r.executor.id })}>
                    <span translate="no">
                      {r.executor.app} · {r.executor.url}
                    </span>{' '}
                    ({codeLabel(r.executor.state)})
                  </Link>
                ) : r.executorId !== null ? (
                  t('#{{id}} (no longer registered)', { id: r.executorId })
                ) : r.cause !== 'SHARD' && r.shardTotal !== null ? (
                  t('one per shard (see Shards below)')
                ) : (
                  '—'
                )}
              </dd>
            </div>
            {r.cause === 'SHARD' ? (
              <div>
                <dt>{t('Shard')}</dt>
                <dd data-run-shard>
                  {t('{{number}} of {{total}} (ctx.shardIndex {{index}}) of fan-out run', { number: (r.shardIndex ?? 0) + 1, total: r.shardTotal ?? 1, index: r.shardIndex ?? 0 })}{' '}
                  <Link to={`/runs/${r.parentRunId}`}>#{r.parentRunId}</Link>
                </dd>
              </div>
            ) : (
              <div>
                <dt>{t('Parent run')}</dt>
                <dd>{r.parentRunId ? <Link to={`/runs/${r.parentRunId}`}>#{r.parentRunId}</Link> : '—'}</dd>
              </div>
            )}
            <div>
              <dt>{t('Flow')}</dt>
              <dd data-run-flow>
                {r.flowId === null ? (
                  '—'
                ) : (
                  <>
                    {r.flowId !== r.id ? <Link to={`/runs/${r.flowId}`}>{t('root run #{{id}}', { id: r.flowId })}</Link> : t('this run is the root')} ·{' '}
                    <Link to={`/dependencies?flow=${r.flowId}`}>{t('show on the dependency graph')}</Link>
                  </>
                )}
              </dd>
            </div>
            {r.traceId ? (
              <div>
                <dt>{t('Trace')}</dt>
                <dd data-run-trace className="mono" translate="no">
                  {r.traceUrl ? (
                    <a href={r.traceUrl} target="_blank" rel="noreferrer">
                      {r.traceId}
                    </a>
                  ) : (
                    r.traceId
                  )}
                </dd>
              </div>
            ) : null}
          </dl>

          {r.approval ? <ApprovalSection runId={runId} approval={r.approval} onDecided={() => void run.reload()} /> : null}

          <AttemptsSection run={r} attempts={attempts.data?.items} />

          {r.cause !== 'SHARD' && r.shardTotal !== null ? (
            <>
              <h2>{t('Shards')}</h2>
              <p className="small muted">{t('This run went to {{count}} shard(s); it ends when they all have, each after its own retries.', { count: r.shardTotal })}</p>
              <DataTable
                label={t('Shards')}
                rows={shards.data}
                rowKey={(sh) => sh.id}
                rowProps={(sh) => ({ 'data-shard': sh.shardIndex ?? undefined })}
                empty={<EmptyState title={t('No shard written yet.')}>{t('The engine writes them as it claims the run; they show here live.')}</EmptyState>}
                columns={[
                  { header: t('Shard'), cell: (sh) => sh.shardIndex },
                  { header: t('Run'), cell: (sh) => <Link to={`/runs/${sh.id}`}>#{sh.id}</Link> },
                  { header: t('State'), cell: (sh) => <StateBadge state={sh.state} /> },
                  { header: t('Attempt'), cell: (sh) => sh.attempt },
                  { header: t('Executor'), cell: (sh) => (sh.executorId !== null ? `#${sh.executorId}${sh.pinnedExecutorId !== null ? ` ${t('(pinned)')}` : ''}` : '—') },
                  { header: t('Error'), className: 'small', cellProps: () => ({ translate: 'no' as const }), cell: (sh) => sh.error ?? '' },
                ]}
              />
            </>
          ) : null}

          {waiting ? (
            <>
              <h2>{t('Why it waits')}</h2>
              <pre className="notice mono" data-run-waiting translate="no">
                {r.error}
              </pre>
              {errorDetail}
            </>
          ) : null}
          <h2>{t('Result')}</h2>
          {r.error && !waiting ? (
            <>
              <pre className="error-box mono" data-run-error translate="no">
                {r.error}
              </pre>
              {errorDetail}
            </>
          ) : null}
          {r.result !== null && r.result !== undefined ? <pre className="code">{JSON.stringify(r.result, null, 2)}</pre> : !r.error || waiting ? <p className="muted">{t('No result yet.')}</p> : null}
          <details>
            <summary>{t('Params')}</summary>
            <pre className="code">{JSON.stringify(r.params, null, 2)}</pre>
          </details>

          <h2>{t('Child runs')}</h2>
          {children.data?.length ? (
            <ul>
              {children.data.map((c) => (
                <li key={c.id}>
                  <Link to={`/runs/${c.id}`}>#{c.id}</Link> <span translate="no">{c.taskName}</span> <StateBadge state={c.state} />
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">{t('None: a dependency edge from this task fires child runs when this run ends.')}</p>
          )}
        </>
      ) : null}
    </>
  );
}

/** What became of a withdrawn fire's instant (Run.withdrawal), for people. */
function withdrawalText(w: NonNullable<Run['withdrawal']>): string {
  switch (w) {
    case 'UNSETTLED':
      return t('Withdrawn after it may have been sent ahead: waiting for its executor to confirm it never started it (its instant is not run again before)');
    case 'NOT_STARTED':
      return t('Withdrawn before its executor started it: its instant runs again as the task now says');
    case 'STARTED':
      return t('Withdrawn too late: its executor had already started it, so it ran as it was prepared');
    case 'UNKNOWN':
      return t('Withdrawn, but its executor never said whether it started it: taken as run as it was prepared, not run again');
  }
}
