import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { bucketStart, canonicalCronTrigger, dstMarks, emptyCell, estimate, INSTANT_REASON, isMillis, mergeCell, nextFireTimes, parseCron, REPEATED_TIME_POLICIES, SKIPPED_TIME_POLICIES, successRate, type RepeatedTimePolicy, type SkippedTimePolicy } from '@baton/domain';
import { findLastRuns, firstTaskIds, ownedTaskIds, taskExists, type LastRun } from '@baton/persistence';
import { splitError } from '@baton/protocol';
import { badRequest, notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import { canonicalId } from '../common/id.pipe';
import { readWindowCells, spanFor } from '../stats/rollup-reader';

import type { CronPreviewDto, CronPreviewView, LastRunView, SeriesBucketView, StatsSeriesView, TaskSummaryView } from './dto';

const MAX_BUCKETS = 500;

/**
 * Read models the web console needs beyond the resource API: the cron preview (one trigger
 * implementation: the domain's), each task's last run and result, and statistics over time.
 */
@Injectable()
export class ConsoleUiService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  cronPreview(body: CronPreviewDto): CronPreviewView {
    const parsed = parseCron(body.expression, body.timeZone ?? 'UTC');
    if (!parsed.ok) throw badRequest([{ field: parsed.error === 'UNKNOWN_TIME_ZONE' ? 'timeZone' : 'expression', reason: parsed.reason }]);
    const after = body.after ?? this.clock.now();
    if (!isMillis(after)) throw badRequest([{ field: 'after', reason: INSTANT_REASON }]);
    const policy = (field: 'repeatedTime' | 'skippedTime', allowed: readonly string[]) => {
      const value = body[field];
      if (value !== undefined && (typeof value !== 'string' || !allowed.includes(value))) throw badRequest([{ field, reason: `must be one of ${allowed.join(', ')}` }]);
      return value as string | undefined;
    };
    const repeatedTime = policy('repeatedTime', REPEATED_TIME_POLICIES) as RepeatedTimePolicy | undefined;
    const skippedTime = policy('skippedTime', SKIPPED_TIME_POLICIES) as SkippedTimePolicy | undefined;
    const count = body.count ?? 10;
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > 50) throw badRequest([{ field: 'count', reason: 'must be an integer from 1 to 50' }]);
    const trigger = canonicalCronTrigger({ kind: 'CRON', expression: parsed.expression, timeZone: parsed.timeZone, repeatedTime, skippedTime });
    const next = nextFireTimes({ trigger, startAt: null, endAt: null, maxFires: null, fireCount: 0, calendar: null }, after, count);
    return { expression: parsed.expression, timeZone: parsed.timeZone, next, nextIso: next.map((t) => new Date(t).toISOString()), dst: dstMarks(trigger, after, next) };
  }

  async taskSummaries(tenantId: string, idsParam: string | undefined): Promise<TaskSummaryView[]> {
    let ids: number[];
    if (idsParam !== undefined && idsParam.trim() !== '') {
      const parsed = idsParam.split(',').map(canonicalId);
      ids = parsed.filter((n): n is number => n !== null);
      if (ids.length < parsed.length || ids.length > 500) throw badRequest([{ field: 'ids', reason: 'must be at most 500 comma-separated task ids, each a positive integer in canonical decimal' }]);
    } else {
      ids = await firstTaskIds(this.dataSource.manager, tenantId, 500);
    }
    if (ids.length === 0) return [];
    const owned = await ownedTaskIds(this.dataSource.manager, tenantId, ids);
    const view = (r: LastRun | null): LastRunView | null =>
      r ? { id: r.id, state: r.state, scheduledAt: r.scheduledAt, finishedAt: r.finishedAt, error: r.error === null ? null : splitError(r.error).summary } : null;
    const last = await findLastRuns(this.dataSource.manager, tenantId, owned);
    return last.map(({ taskId, lastRun, lastResult }) => ({ taskId, lastRun: view(lastRun), lastResult: view(lastResult) }));
  }

  /**
   * Statistics over time from the rollups (see StatsService): buckets are whole minutes, and
   * whole hours for windows over 6 h (minute rollups are kept 48 h); each bucket holds the runs
   * that ended in it.
   */
  async statsSeries(tenantId: string, query: { windowMs?: number; bucketMs?: number; taskId?: number }): Promise<StatsSeriesView> {
    const windowMs = query.windowMs ?? 3600_000;
    const spanMs = spanFor(windowMs);
    const wanted = Math.max(query.bucketMs ?? 60_000, Math.ceil(windowMs / MAX_BUCKETS));
    const bucketMs = Math.ceil(wanted / spanMs) * spanMs;
    const taskId = query.taskId ?? null;
    if (taskId !== null) {
      if (!(await taskExists(this.dataSource.manager, tenantId, taskId))) throw notFound('Task', taskId);
    }
    const to = this.clock.now();
    const from = bucketStart(to - windowMs, bucketMs);
    const { cells, sampled } = await readWindowCells(this.dataSource.manager, { tenantId, taskId, from, to, spanMs });
    const n = Math.floor((to - from) / bucketMs) + 1;
    const acc = Array.from({ length: n }, () => emptyCell());
    for (const [start, cell] of cells) mergeCell(acc[Math.min(n - 1, Math.floor((start - from) / bucketMs))], cell);
    const buckets: SeriesBucketView[] = acc.map((cell, i) => {
      const d = estimate(cell.duration);
      const l = estimate(cell.lateness);
      return {
        t: from + i * bucketMs,
        counts: Object.fromEntries(Object.entries(cell.counts).filter(([, c]) => c > 0)),
        successRate: successRate(cell.counts),
        durationP50: d.p50,
        durationP95: d.p95,
        latenessP50: l.p50,
        latenessP95: l.p95,
        earlyStarts: cell.earlyStarts,
      };
    });
    return { taskId, from, to, bucketMs, buckets, sampled };
  }
}
