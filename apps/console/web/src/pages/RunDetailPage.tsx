import { useEffect, useRef } from 'react';
import { ApiError, get, post, qs } from '../api';
import { ErrorBox, PageHeader, StateBadge, useToast } from '../components';
import { DataTable } from '../DataTable';
import { EmptyState } from '../EmptyState';
import { fmtDuration, fmtTime } from '../format';
import { useLoad } from '../hooks';
import { useLive, useRunEvents } from '../live';
import { isTerminal, type Dependency, type Page, type Run, type RunDetail } from '../model';
import { Link } from '../router';

export function RunDetailPage({ runId, canWrite }: { runId: number; canWrite: boolean }) {
  const toast = useToast();
  const run = useLoad(() => get<RunDetail>(`/runs/${runId}`), [runId]);
  const children = useLoad(async () => {
    const r = run.data;
    if (!r) return [] as Run[];
    const edges = await get<Dependency[]>(`/dependencies${qs({ taskId: r.taskId })}`);
    const childTasks = edges.filter((e) => e.parentTaskId === r.taskId).map((e) => e.childTaskId);
    const pages = await Promise.all(childTasks.map((t) => get<Page<Run>>(`/runs${qs({ taskId: t, cause: 'DEPENDENCY', limit: 100 })}`)));
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
    if (!window.confirm(`Cancel run #${runId}? Its handler is aborted where it is.`)) return;
    try {
      await post(`/runs/${runId}/cancel`);
      await run.reload();
    } catch (e) {
      toast.notify(e instanceof ApiError ? e.body.message : (e as Error).message, 'error');
    }
  };

  const r = run.data;
  const steps = r ? timelineOf(r) : [];
  const startedBeforeAck = !!r && r.startedAt !== null && r.acceptedAt !== null && r.startedAt < r.acceptedAt;
  const attempts = r ? [...new Set([...r.logs.map((l) => l.attempt), r.attempt])].sort((a, b) => a - b) : [];
  return (
    <>
      <PageHeader title={`Run #${runId}`}>
        {r && canWrite && !isTerminal(r.state) ? (
          <button type="button" className="btn-danger" onClick={() => void cancel()}>
            Cancel run
          </button>
        ) : null}
      </PageHeader>
      <ErrorBox error={run.error} />
      {r ? (
        <>
          <dl className="facts">
            <div>
              <dt>Task</dt>
              <dd>{r.taskName ? <Link to={`/tasks/${r.taskId}`}>{r.taskName}</Link> : `deleted task ${r.taskId}`}</dd>
            </div>
            {r.flowId !== null ? (
              <div>
                <dt>Flow</dt>
                <dd>
                  <Link to={`/dependencies?flow=${r.flowId}`}>Flow of run #{r.flowId} on the dependency graph</Link>
                </dd>
              </div>
            ) : null}
            <div>
              <dt>State</dt>
              <dd data-run-state={r.state}>
                <StateBadge state={r.state} />
                {r.progress !== null && r.state === 'ACCEPTED' ? <progress max={100} value={r.progress} aria-label="Progress" /> : null}
              </dd>
            </div>
            <div>
              <dt>Cause</dt>
              <dd>{r.cause}</dd>
            </div>
            <div>
              <dt>Attempt</dt>
              <dd>{r.attempt}</dd>
            </div>
            <div>
              <dt>Executor</dt>
              <dd data-run-executor>
                {r.executor ? (
                  <Link to="/executors" title={`Executor #${r.executor.id}`}>
                    {r.executor.app} · {r.executor.url} ({r.executor.state})
                  </Link>
                ) : r.executorId !== null ? (
                  `#${r.executorId} (no longer registered)`
                ) : r.cause !== 'SHARD' && r.shardTotal !== null ? (
                  'its shards’ (below)'
                ) : (
                  '—'
                )}
              </dd>
            </div>
            {r.cause === 'SHARD' ? (
              <div>
                <dt>Shard</dt>
                <dd data-run-shard>
                  {r.shardIndex} of 0…{(r.shardTotal ?? 1) - 1} of fan-out run <Link to={`/runs/${r.parentRunId}`}>#{r.parentRunId}</Link>
                </dd>
              </div>
            ) : (
              <div>
                <dt>Parent run</dt>
                <dd>{r.parentRunId ? <Link to={`/runs/${r.parentRunId}`}>#{r.parentRunId}</Link> : '—'}</dd>
              </div>
            )}
            <div>
              <dt>Flow</dt>
              <dd>{r.flowId && r.flowId !== r.id ? <Link to={`/runs/${r.flowId}`}>#{r.flowId}</Link> : r.flowId ? 'this run is the root' : '—'}</dd>
            </div>
          </dl>

          <h2>Timeline</h2>
          <ol className="timeline" aria-label="Run timeline">
            {steps.map(({ label, at, clock }, i) => {
              const prev = steps.slice(0, i).reverse().find((step) => step.at !== null)?.at ?? null;
              return (
                <li key={label} className={at !== null ? 'done' : 'todo'} data-step={label.toLowerCase()} title={`${clock} clock`}>
                  <span className="tl-label">{label}</span>
                  <span className="tl-time mono">{fmtTime(at)}</span>
                  <span className="tl-delta small muted">{at !== null && prev !== null && i > 0 ? `${at >= prev ? '+' : ''}${fmtDuration(at - prev)}` : ''}</span>
                </li>
              );
            })}
          </ol>
          {startedBeforeAck ? (
            <p className="small muted" data-timeline-note>
              The executor starts the handler as it acknowledges: Started (its clock) came before Accepted (the engine received the acknowledgement).
            </p>
          ) : null}

          {r.cause !== 'SHARD' && r.shardTotal !== null ? (
            <>
              <h2>Shards</h2>
              <p className="small muted">
                This run went to {r.shardTotal} shard(s); it ends when they all have, each after its own retries.
              </p>
              <DataTable
                label="Shards"
                rows={shards.data}
                rowKey={(sh) => sh.id}
                rowProps={(sh) => ({ 'data-shard': sh.shardIndex ?? undefined })}
                empty={<EmptyState title="No shard written yet.">The engine writes them as it claims the run; they show here live.</EmptyState>}
                columns={[
                  { header: 'Shard', cell: (sh) => sh.shardIndex },
                  { header: 'Run', cell: (sh) => <Link to={`/runs/${sh.id}`}>#{sh.id}</Link> },
                  { header: 'State', cell: (sh) => <StateBadge state={sh.state} /> },
                  { header: 'Attempt', cell: (sh) => sh.attempt },
                  { header: 'Executor', cell: (sh) => (sh.executorId !== null ? `#${sh.executorId}${sh.pinnedExecutorId !== null ? ' (pinned)' : ''}` : '—') },
                  { header: 'Error', className: 'small', cell: (sh) => sh.error ?? '' },
                ]}
              />
            </>
          ) : null}

          <h2>Result</h2>
          {r.error ? (
            <pre className="error-box mono" data-run-error>
              {r.error}
            </pre>
          ) : null}
          {r.errorDetail ? (
            <details className="error-detail">
              <summary>Stack and details</summary>
              <pre className="mono small">{r.errorDetail}</pre>
            </details>
          ) : null}
          {r.result !== null && r.result !== undefined ? <pre className="code">{JSON.stringify(r.result, null, 2)}</pre> : !r.error ? <p className="muted">No result yet.</p> : null}
          <details>
            <summary>Params</summary>
            <pre className="code">{JSON.stringify(r.params, null, 2)}</pre>
          </details>

          <h2>Log lines</h2>
          {attempts.map((a) => {
            const lines = r.logs.filter((l) => l.attempt === a);
            return (
              <section key={a} aria-label={`Attempt ${a}`}>
                <h3 className="small">
                  Attempt {a}
                  {a === r.attempt ? ' (latest)' : ''}
                </h3>
                <DataTable
                  label={`Log lines of attempt ${a}`}
                  className="logs"
                  rows={lines}
                  rowKey={(l) => l.id}
                  rowProps={(l) => ({ className: `log-${l.level}` })}
                  empty={
                    <EmptyState title={!isTerminal(r.state) && a === r.attempt ? 'No log lines yet.' : 'This attempt wrote no log lines.'}>
                      A handler writes them with ctx.log.info(…) (and warn, error); they show here live, within about a second.
                    </EmptyState>
                  }
                  columns={[
                    { header: 'Time', className: 'mono small', cell: (l) => fmtTime(l.at) },
                    { header: 'Level', cell: (l) => l.level },
                    { header: 'Message', className: 'mono', cell: (l) => l.message },
                  ]}
                />
              </section>
            );
          })}

          <h2>Child runs</h2>
          {children.data?.length ? (
            <ul>
              {children.data.map((c) => (
                <li key={c.id}>
                  <Link to={`/runs/${c.id}`}>#{c.id}</Link> {c.taskName} <StateBadge state={c.state} />
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">None: a dependency edge from this task fires child runs when this run ends.</p>
          )}
        </>
      ) : null}
    </>
  );
}

interface TimelineStep {
  label: string;
  at: number | null;
  /** Whose clock measured it: the engine's, or the executor's (another machine). */
  clock: 'engine' | 'executor';
}

/**
 * The steps of a run in the order they happened: Started (executor clock) may precede Accepted
 * (the engine got the 202), as the executor starts the handler while it answers. Steps not
 * reached yet come last, in their usual order.
 */
function timelineOf(r: Run): TimelineStep[] {
  const steps: TimelineStep[] = [
    { label: 'Scheduled', at: r.scheduledAt, clock: 'engine' },
    { label: 'Dispatched', at: r.dispatchedAt, clock: 'engine' },
    { label: 'Accepted', at: r.acceptedAt, clock: 'engine' },
    { label: 'Started', at: r.startedAt, clock: 'executor' },
    { label: 'Finished', at: r.finishedAt, clock: 'executor' },
  ];
  const done = steps.filter((step) => step.at !== null).sort((a, b) => a.at! - b.at!);
  return [...done, ...steps.filter((step) => step.at === null)];
}
