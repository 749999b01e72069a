import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ACTIVE_STATES, attemptTimeline, firstAttemptLateness, type RunState } from '@baton/domain';
import { splitError } from '@baton/protocol';
import {
  afterCommit,
  cancelRun,
  cancelShards,
  findExecutor,
  findRun,
  findRunAttempts,
  findTenantRuns,
  insertManualRun,
  inTransaction,
  listRuns,
  readRunLogPage,
  RunEntity,
  runExists,
  type ExecutorEntity,
  type RunLogEntity,
  searchRuns,
  taskExists,
  TaskEntity,
  taskNames,
} from '@baton/persistence';
import type { EntityManager } from 'typeorm';
import { ApiException, badRequest, conflict, notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import { auditChange } from '../audit';
import { DEFAULT_PAGE_SIZE, type Page } from '../common/cursor';
import { keysetPage } from '../common/query';
import { decodeCursor, encodeCursor } from '../common/cursor';
import type { BulkRunResultView, RunAttemptView, RunDetailView, RunQuery, RunSearchPageView, RunSearchQuery, RunView } from './dto/run.dto';
import type { RunWakeups } from '@baton/messaging';
import { abortAtExecutorsAfterCommit } from '../wakeups/cancel-notices';
import { RUN_WAKEUPS } from '../wakeups/run-wakeups';
import { wakeupsGone } from '../wakeups/wakeups-gone';
import { TenantHeavyWork } from '../common/tenant-heavy-work';

export function runView(row: RunEntity, taskName: string | null): RunView {
  return {
    id: row.id,
    taskId: row.taskId,
    taskName,
    state: row.state,
    cause: row.cause,
    flowId: row.flowId ?? row.id, // a root's flow_id is null: its flow is its id
    parentRunId: row.parentRunId,
    shardIndex: row.shardIndex,
    shardTotal: row.shardTotal,
    pinnedExecutorId: row.pinnedExecutorId,
    attempt: row.attempt,
    priority: row.priority,
    scheduledAt: row.scheduledAt,
    dueAt: row.dueAt,
    executorId: row.executorId,
    dispatchedAt: row.dispatchedAt,
    firstDispatchedAt: row.firstDispatchedAt,
    latenessMs: firstAttemptLateness(row),
    acceptedAt: row.acceptedAt,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
    error: row.error === null ? null : splitError(row.error).summary,
    progress: row.progress,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/**
 * A run with its params, result, executor, timeline and logs. A run just created (a trigger's,
 * a re-run's) is answered from the row it was written as, with no executor and no logs yet: a
 * read back would cost its request three statements on the way of the engine's claim.
 */
export function runDetailView(
  row: RunEntity,
  taskName: string | null,
  executor: Pick<ExecutorEntity, 'id' | 'app' | 'url' | 'state'> | null = null,
  logs: ReadonlyArray<Pick<RunLogEntity, 'id' | 'attempt' | 'at' | 'level' | 'message'>> = [],
): RunDetailView {
  return {
    ...runView(row, taskName),
    params: row.params,
    result: row.result,
    errorDetail: row.error === null ? null : splitError(row.error).detail,
    executor: executor ? { id: executor.id, app: executor.app, url: executor.url, state: executor.state } : null,
    timeline: attemptTimeline({ ...row, scheduledAt: row.attempt === 1 ? row.scheduledAt : row.dueAt }),
    logs: logs.map((l) => ({ id: l.id, attempt: l.attempt, at: l.at, level: l.level, message: l.message })),
  };
}

/** Run logs in a detail view are capped; the newest attempt's lines matter most. */
const MAX_LOG_LINES = 1000;

@Injectable()
export class RunsService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(RUN_WAKEUPS) private readonly wakeups: RunWakeups,
    private readonly heavyWork: TenantHeavyWork,
  ) {}

  private taskNames(tenantId: string, taskIds: number[]): Promise<Map<number, string>> {
    return taskNames(this.dataSource.manager, tenantId, [...new Set(taskIds)]);
  }

  /** Newest first, keyset-paged (listRuns). */
  list(tenantId: string, query: RunQuery): Promise<Page<RunView>> {
    const { cursor, limit, ...filter } = query;
    return keysetPage(
      (page) => listRuns(this.dataSource.manager, tenantId, filter, page),
      { timeOf: (r) => r.scheduledAt, idOf: (r) => r.id, cursor, limit },
      async (rows) => {
        const names = await this.taskNames(tenantId, rows.map((r) => r.taskId));
        return rows.map((r) => runView(r, names.get(r.taskId) ?? null));
      },
    );
  }

  /**
   * Runs whose error text (or params) contains `q`, scheduled in [from, to), newest first — a
   * slice of the range a call (searchRuns: at most SEARCH_SCAN_BUDGET runs examined), so a call
   * costs the same at any history size; the client pages on with nextCursor.
   */
  async search(tenantId: string, query: RunSearchQuery): Promise<RunSearchPageView> {
    if (query.to <= query.from) throw badRequest([{ field: 'to', reason: `must be after from (${query.from})` }]);
    return this.heavyWork.run(tenantId, () => this.searchSlice(tenantId, query));
  }

  /** One search call's slice (see search), run while no other heavy request of its tenant is (TenantHeavyWork). */
  private async searchSlice(tenantId: string, query: RunSearchQuery): Promise<RunSearchPageView> {
    if (query.taskId !== undefined && !(await taskExists(this.dataSource.manager, tenantId, query.taskId))) throw notFound('Task', query.taskId);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const page = await searchRuns(this.dataSource.manager, {
      tenantId,
      taskId: query.taskId,
      text: query.q,
      field: query.field ?? 'error',
      from: query.from,
      to: query.to,
      after: query.cursor === undefined ? null : decodeCursor(query.cursor),
      scanBudget: SEARCH_SCAN_BUDGET,
      limit,
    });
    const names = await this.taskNames(tenantId, page.rows.map((r) => r.taskId));
    return {
      items: page.rows.map((r) => runView(r, names.get(r.taskId) ?? null)),
      nextCursor: page.next ? encodeCursor(page.next.time, page.next.id) : null,
      searchedFrom: page.next ? page.next.time : query.from,
    };
  }

  async get(tenantId: string, id: number): Promise<RunDetailView> {
    const em = this.dataSource.manager;
    const row = await findRun(em, tenantId, id);
    if (!row) throw notFound('Run', id);
    const [names, logs, executor] = await Promise.all([
      this.taskNames(tenantId, [row.taskId]),
      readRunLogPage(em, { tenantId, runId: id, afterId: 0, limit: MAX_LOG_LINES }),
      row.executorId === null ? null : findExecutor(em, tenantId, row.executorId),
    ]);
    return runDetailView(row, names.get(row.taskId) ?? null, executor, logs);
  }

  /**
   * Runs a finished run again: a new MANUAL run of its task with the params (and flow params) the
   * finished run had — not the task's current ones — due now. 409 while the run is still active,
   * for a shard (re-run its fan-out run) and for a run whose task was deleted.
   */
  async rerun(tenantId: string, id: number): Promise<RunDetailView> {
    const answer = await inTransaction(this.dataSource, async (em) => {
      const { runs, tasks } = await findTenantRuns(em, { tenantId, ids: [id] });
      const created = await this.rerunIn(em, tenantId, id, runs.get(id), tasks);
      await auditChange(em, { tenantId, objectType: 'run', objectId: created.id, after: { rerunOf: id, taskId: runs.get(id)?.taskId ?? null } });
      return runDetailView(created, tasks.get(created.taskId)?.name ?? null);
    });
    await wakeupsGone();
    return answer;
  }

  private async rerunIn(em: EntityManager, tenantId: string, id: number, row: RunEntity | undefined, tasks: Map<number, TaskEntity>): Promise<RunEntity> {
    if (!row) throw notFound('Run', id);
    if (isActive(row.state)) {
      throw conflict(`Run ${id} is ${row.state}: only a finished run can be run again`, [{ field: 'state', reason: `is ${row.state}, the run is not over yet` }]);
    }
    if (row.cause === 'SHARD') {
      throw conflict(`Run ${id} is shard ${row.shardIndex} of run ${row.parentRunId}: run ${row.parentRunId} again`, [
        { field: 'cause', reason: `is SHARD: a shard runs again with its fan-out run ${row.parentRunId}` },
      ]);
    }
    const task = tasks.get(row.taskId);
    if (!task) throw conflict(`Run ${id}'s task ${row.taskId} was deleted`, [{ field: 'taskId', reason: `task ${row.taskId} no longer exists` }]);
    const now = this.clock.now();
    const created = await insertManualRun(em, {
      tenantId,
      taskId: task.id,
      engineGroup: task.engineGroup,
      priority: task.priority,
      params: row.params,
      flowParams: row.flowParams,
      now,
    });
    // Due now: the engines hear of it once it is committed, not at their next poll.
    afterCommit(em, () => this.wakeups.wake({ tenantId, engineGroup: task.engineGroup, dueAt: now, runIds: [created.id] }));
    return created;
  }

  /**
   * A bulk action of the runs list: every id in one transaction, one result per id in the order
   * given (an id that fails — missing, another tenant's, in the wrong state — is a result with
   * its status and reason, and does not undo the others).
   */
  bulk(tenantId: string, ids: readonly number[], action: 'cancel' | 'rerun'): Promise<BulkRunResultView[]> {
    const unique = [...new Set(ids)];
    return inTransaction(this.dataSource, async (em) => {
      const { runs, tasks } = await findTenantRuns(em, { tenantId, ids: unique });
      const results: BulkRunResultView[] = [];
      const sent: RunEntity[] = [];
      for (const id of unique) {
        try {
          if (action === 'cancel') {
            const before = await this.cancelIn(em, tenantId, id, runs.get(id));
            if (wasSent(before)) sent.push(before);
            results.push({ id, status: 200, runId: id, message: null });
          } else {
            results.push({ id, status: 201, runId: (await this.rerunIn(em, tenantId, id, runs.get(id), tasks)).id, message: null });
          }
        } catch (error) {
          if (!(error instanceof ApiException)) throw error;
          const body = error.getResponse() as { message: string };
          results.push({ id, status: error.getStatus(), runId: null, message: body.message });
        }
      }
      // One record for the request, naming what it did; a request that changed no run records nothing.
      const done = results.filter((r) => r.runId !== null).map((r) => ({ id: r.id, runId: r.runId }));
      if (done.length > 0) await auditChange(em, { tenantId, objectType: 'run', objectId: null, after: { action, runs: done } });
      abortAtExecutorsAfterCommit(em, this.wakeups, tenantId, sent.map((r) => ({ runId: r.id, engineGroup: r.engineGroup })));
      return results;
    });
  }

  /**
   * Every attempt of a run, oldest first, each with its timeline (attemptTimeline: one fixed
   * order, out-of-order reports flagged) and its first log lines: the earlier ones as a retry
   * kept them (run_attempts), the latest from the run row. An attempt's timeline starts at its
   * due time — the fire time, or the end of its backoff — so a retry's wait is not its lateness.
   */
  async attempts(tenantId: string, id: number): Promise<RunAttemptView[]> {
    const row = await findRun(this.dataSource.manager, tenantId, id);
    if (!row) throw notFound('Run', id);
    const numbers = Array.from({ length: row.attempt }, (_, i) => i + 1);
    const { earlier, logs } = await findRunAttempts(this.dataSource.manager, { tenantId, runId: id, attempts: numbers, logsPerAttempt: MAX_LOG_LINES });
    const kept = new Map(earlier.map((a) => [a.attempt, a]));
    const logsOf = (attempt: number) => (logs.get(attempt) ?? []).map((l) => ({ id: l.id, attempt: l.attempt, at: l.at, level: l.level, message: l.message }));
    const summary = (error: string | null) => (error === null ? null : splitError(error).summary);
    return numbers.map((attempt): RunAttemptView => {
      const dueOf = (dueAt: number) => (attempt === 1 ? row.scheduledAt : dueAt);
      if (attempt === row.attempt) {
        const timeline = attemptTimeline({ ...row, scheduledAt: dueOf(row.dueAt) });
        return { attempt, latest: true, state: row.state, executorId: row.executorId, dueAt: dueOf(row.dueAt), error: summary(row.error), timeline, logs: logsOf(attempt) };
      }
      const a = kept.get(attempt);
      // Retried before attempts were kept: its log lines are all there is.
      if (!a) return { attempt, latest: false, state: null, executorId: null, dueAt: null, error: null, timeline: [], logs: logsOf(attempt) };
      const timeline = attemptTimeline({ ...a, scheduledAt: dueOf(a.dueAt) });
      return { attempt, latest: false, state: a.state, executorId: a.executorId, dueAt: dueOf(a.dueAt), error: summary(a.error), timeline, logs: logsOf(attempt) };
    });
  }

  /**
   * Cancels a run that is not over yet (cancelRun: one guarded update); else 409 naming its state.
   * A fan-out run takes its live shards with it — cancelled first, as the engines lock a shard
   * before its fan-out run. A shard alone is refused: its fan-out run would wait for it forever,
   * and the engines, not the console, end a fan-out run.
   */
  async cancel(tenantId: string, id: number): Promise<RunDetailView> {
    await inTransaction(this.dataSource, async (em) => {
      const row = await this.cancelIn(em, tenantId, id, (await findRun(em, tenantId, id)) ?? undefined);
      await auditChange(em, { tenantId, objectType: 'run', objectId: id, before: { taskId: row.taskId, state: row.state }, after: { taskId: row.taskId, state: 'CANCELLED' } });
      if (wasSent(row)) abortAtExecutorsAfterCommit(em, this.wakeups, tenantId, [{ runId: row.id, engineGroup: row.engineGroup }]);
    });
    return this.get(tenantId, id);
  }

  /** cancel() in a transaction of the caller's; `row` as read in it (returned: the run before). A refusal writes nothing. */
  private async cancelIn(em: EntityManager, tenantId: string, id: number, row: RunEntity | undefined): Promise<RunEntity> {
    if (!row) throw notFound('Run', id);
    if (!isActive(row.state)) throw notActive(id, row.state);
    if (row.cause === 'SHARD') {
      throw conflict(`Run ${id} is shard ${row.shardIndex} of run ${row.parentRunId}: cancel run ${row.parentRunId}, which cancels its shards`, [
        { field: 'cause', reason: `is SHARD: a shard is cancelled with its fan-out run ${row.parentRunId}` },
      ]);
    }
    const now = this.clock.now();
    if (row.shardTotal !== null) await cancelShards(em, { parentRunIds: [id], reason: `Cancelled with its fan-out run ${id}`, now });
    const moved = await cancelRun(em, { runId: id, tenantId, now });
    if (!moved) {
      const current = await findRun(em, tenantId, id);
      throw notActive(id, current?.state ?? row.state);
    }
    return row;
  }

  /**
   * The run's whole log as text, one line per log line (`<ISO time> <LEVEL> [attempt n] message`),
   * oldest first, read a page at a time: the detail view keeps only its first 1,000 lines.
   */
  async *logText(tenantId: string, id: number): AsyncGenerator<string> {
    const exists = await runExists(this.dataSource.manager, tenantId, id);
    if (!exists) throw notFound('Run', id);
    let afterId = 0;
    for (;;) {
      const page = await readRunLogPage(this.dataSource.manager, { tenantId, runId: id, afterId, limit: LOG_PAGE });
      if (page.length === 0) return;
      yield page.map((l) => `${new Date(l.at).toISOString()} ${l.level.toUpperCase().padEnd(5)} [attempt ${l.attempt}] ${l.message}\n`).join('');
      afterId = page[page.length - 1].id;
    }
  }
}

/**
 * Runs a search call examines at most (searchRuns). Measured with the history bench's search
 * calls (docs/BENCHMARKS.md): the slice's cost, not the table's size, sets a call's time.
 */
export const SEARCH_SCAN_BUDGET = 20_000;

/** Log lines a page of the log download reads: at most 250 × 8,000 characters (2 MB) in memory per download. */
const LOG_PAGE = 250;

function isActive(state: RunState): boolean {
  return (ACTIVE_STATES as readonly RunState[]).includes(state);
}

function notActive(id: number, state: RunState): ApiException {
  return conflict(`Run ${id} is ${state}: only an active run can be cancelled`, [{ field: 'state', reason: `is ${state}, not one of ${ACTIVE_STATES.join(', ')}` }]);
}

/** A run sent to an executor (DISPATCHED: maybe; ACCEPTED: surely) may be running or waiting there for its instant. */
function wasSent(run: RunEntity): boolean {
  return run.state === 'DISPATCHED' || run.state === 'ACCEPTED';
}
