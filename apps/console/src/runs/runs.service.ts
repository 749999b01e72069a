import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { attemptTimeline, firstAttemptLateness, lateDecisionProblem, refusalToDecide, shownTextContains, type Decider } from '@baton/domain';
import { splitError } from '@baton/protocol';
import { traceFields } from '@baton/tracing';
import {
  dialectOf,
  findExecutor,
  findRun,
  findRunApproval,
  findRunAttempts,
  listRuns,
  type ListedRun,
  readRunLogPage,
  type RunApprovalEntity,
  RunEntity,
  runExists,
  type ExecutorEntity,
  type RunLogEntity,
  searchRuns,
  taskExists,
  taskNames,
} from '@baton/persistence';
import { badRequest, notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import { CONSOLE_OPTIONS, traceUrlOf, type ResolvedConsoleOptions } from '../common/options';
import { DEFAULT_PAGE_SIZE, type Page } from '../common/cursor';
import { keysetPage } from '../common/query';
import { decodeCursor, encodeCursor } from '../common/cursor';
import type { RunApprovalView, RunAttemptView, RunDetailView, RunQuery, RunSearchPageView, RunSearchQuery, RunView } from './dto/run.dto';
import { TenantHeavyWork } from '../common/tenant-heavy-work';
import { searchInSlices } from '../common/search-in-slices';

export function runView(row: ListedRun, taskName: string | null): RunView {
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
    withdrawal: row.withdrawal,
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
  // Object.assign, not `{ ...runView(…), params, … }`: V8 (Node 20) builds that 34-key literal on a
  // slow path, 28 µs a trigger's answer against 0.2 µs for this (microbenchmark, 2026-12-05).
  return Object.assign(runView(row, taskName), {
    params: row.params,
    result: row.result,
    errorDetail: row.error === null ? null : splitError(row.error).detail,
    executor: executor ? { id: executor.id, app: executor.app, url: executor.url, state: executor.state } : null,
    timeline: attemptTimeline({ ...row, scheduledAt: row.attempt === 1 ? row.scheduledAt : row.dueAt }),
    logs: logs.map((l) => ({ id: l.id, attempt: l.attempt, at: l.at, level: l.level, message: l.message })),
    traceId: traceFields(row.traceParent).trace_id ?? null,
    traceUrl: null,
    approval: null,
  });
}

/** A run's approval step as `decider` sees it at `now` (mayDecide: it waits, its deadline is ahead, and the gate admits the decider). */
export function runApprovalView(row: RunApprovalEntity, runState: RunEntity['state'], decider: Decider | undefined, now: number): RunApprovalView {
  return {
    runId: row.runId,
    role: row.role,
    users: row.users,
    deadlineAt: row.deadlineAt,
    onTimeout: row.onTimeout,
    decision: row.decision,
    decidedBy: row.decidedBy,
    decidedAt: row.decidedAt,
    comment: row.comment,
    mayDecide: decider !== undefined && row.decision === null && runState === 'APPROVAL_WAIT' && lateDecisionProblem(row, now) === null && refusalToDecide(row, decider) === null,
  };
}


/** Run logs in a detail view are capped; the newest attempt's lines matter most. */
const MAX_LOG_LINES = 1000;

/** The runs pages' reads: lists, search, a run's detail, attempts and log (RunActionsService changes runs). */
@Injectable()
export class RunsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly heavyWork: TenantHeavyWork,
    @Inject(CONSOLE_OPTIONS) private readonly options: ResolvedConsoleOptions,
    @Inject(CLOCK) private readonly clock: Clock,
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
   * slice of the range a call (searchRuns: at most SEARCH_SCAN's budget examined, 20,000 runs on MariaDB, 5,000 on SQLite in slices of 1,000: searchInSlices), so a call
   * costs the same at any history size; the client pages on with nextCursor. `shown.secretValues`
   * false (a viewer): a params match found only inside secret-named values is left out
   * (shownTextContains), as the viewer sees them redacted.
   */
  async search(tenantId: string, query: RunSearchQuery, shown: { secretValues: boolean }): Promise<RunSearchPageView> {
    if (query.to <= query.from) throw badRequest([{ field: 'to', reason: `must be after from (${query.from})` }]);
    return this.heavyWork.run(tenantId, () => this.searchSlice(tenantId, query, shown));
  }

  /** One search call's slice (see search), run while no other heavy request of its tenant is (TenantHeavyWork). */
  private async searchSlice(tenantId: string, query: RunSearchQuery, shown: { secretValues: boolean }): Promise<RunSearchPageView> {
    if (query.taskId !== undefined && !(await taskExists(this.dataSource.manager, tenantId, query.taskId))) throw notFound('Task', query.taskId);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor === undefined ? null : decodeCursor(query.cursor);
    const page = await searchInSlices(dialectOf(this.dataSource.manager), { after, limit }, (below, scanBudget, left) =>
      searchRuns(this.dataSource.manager, { tenantId, taskId: query.taskId, text: query.q, field: query.field ?? 'error', from: query.from, to: query.to, after: below, scanBudget, limit: left }),
    );
    const rows = query.field === 'params' && !shown.secretValues ? page.rows.filter((r) => shownTextContains(r.params, query.q)) : page.rows;
    const names = await this.taskNames(tenantId, rows.map((r) => r.taskId));
    return {
      items: rows.map((r) => runView(r, names.get(r.taskId) ?? null)),
      nextCursor: page.next ? encodeCursor(page.next.time, page.next.id) : null,
      searchedFrom: page.next ? page.next.time : query.from,
    };
  }

  /** A run's detail; its approval step (if any) as `decider` sees it (none given: mayDecide false). */
  async get(tenantId: string, id: number, decider?: Decider): Promise<RunDetailView> {
    const em = this.dataSource.manager;
    const row = await findRun(em, tenantId, id);
    if (!row) throw notFound('Run', id);
    const [names, logs, executor, approval] = await Promise.all([
      this.taskNames(tenantId, [row.taskId]),
      readRunLogPage(em, { tenantId, runId: id, afterId: 0, limit: MAX_LOG_LINES }),
      row.executorId === null ? null : findExecutor(em, tenantId, row.executorId),
      row.cause === 'DEPENDENCY' ? findRunApproval(em, tenantId, id) : null,
    ]);
    const view = runDetailView(row, names.get(row.taskId) ?? null, executor, logs);
    view.traceUrl = traceUrlOf(this.options.traceUrlTemplate, view.traceId);
    view.approval = approval ? runApprovalView(approval, row.state, decider, this.clock.now()) : null;
    return view;
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

/** Log lines a page of the log download reads: at most 250 × 8,000 characters (2 MB) in memory per download. */
const LOG_PAGE = 250;
