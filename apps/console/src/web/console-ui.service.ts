import { Inject, Injectable } from '@nestjs/common';
import { DataSource, In, Not } from 'typeorm';
import { INSTANT_REASON, isMillis, nextFireTimes, parseCron, type RunState } from '@baton/domain';
import { RunEntity, TaskEntity } from '@baton/persistence';
import { badRequest, notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import { distribution } from '../stats/percentiles';
import { firstAttemptLateness } from '../stats/lateness';
import type { CronPreviewDto, CronPreviewView, LastRunView, SeriesBucketView, StatsSeriesView, TaskSummaryView } from './dto';

/** Runs not yet begun: a "last run" is one of the others. */
const NOT_BEGUN: RunState[] = ['PENDING', 'CLAIMED'];
const FINISHED: RunState[] = ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED'];
const MAX_SERIES_ROWS = 100_000;
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
    if (!parsed.ok) {
      throw badRequest([{ field: parsed.error === 'UNKNOWN_TIME_ZONE' ? 'timeZone' : 'expression', reason: parsed.reason }], parsed.reason);
    }
    const after = body.after ?? this.clock.now();
    if (!isMillis(after)) throw badRequest([{ field: 'after', reason: INSTANT_REASON }]);
    const count = body.count ?? 10;
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > 50) throw badRequest([{ field: 'count', reason: 'must be an integer from 1 to 50' }]);
    const next = nextFireTimes(
      { trigger: { kind: 'CRON', expression: parsed.expression, timeZone: parsed.timeZone }, startAt: null, endAt: null, maxFires: null, fireCount: 0, calendar: null },
      after,
      count,
    );
    return { expression: parsed.expression, timeZone: parsed.timeZone, next, nextIso: next.map((t) => new Date(t).toISOString()) };
  }

  async taskSummaries(tenantId: string, idsParam: string | undefined): Promise<TaskSummaryView[]> {
    let ids: number[];
    if (idsParam !== undefined && idsParam.trim() !== '') {
      ids = idsParam.split(',').map((s) => Number(s.trim()));
      if (ids.some((n) => !Number.isSafeInteger(n) || n < 1) || ids.length > 500) throw badRequest([{ field: 'ids', reason: 'must be at most 500 comma-separated task ids' }]);
    } else {
      const rows = await this.dataSource.getRepository(TaskEntity).find({ where: { tenantId }, select: { id: true }, take: 500, order: { name: 'ASC' } });
      ids = rows.map((r) => r.id);
    }
    if (ids.length === 0) return [];
    const owned = await this.dataSource.getRepository(TaskEntity).find({ where: { tenantId, id: In(ids) }, select: { id: true } });
    const runs = this.dataSource.getRepository(RunEntity);
    const view = (r: RunEntity | null): LastRunView | null =>
      r ? { id: r.id, state: r.state, scheduledAt: r.scheduledAt, finishedAt: r.finishedAt, error: r.error } : null;
    const select = { id: true, state: true, scheduledAt: true, finishedAt: true, error: true } as const;
    // One indexed probe per task (ix_runs_task_time): pages hold at most a few hundred tasks.
    return Promise.all(
      owned.map(async ({ id }) => {
        const [lastRun, lastResult] = await Promise.all([
          runs.findOne({ where: { taskId: id, tenantId, state: notIn(NOT_BEGUN) }, select, order: { scheduledAt: 'DESC', id: 'DESC' } }),
          runs.findOne({ where: { taskId: id, tenantId, state: In(FINISHED) }, select, order: { scheduledAt: 'DESC', id: 'DESC' } }),
        ]);
        return { taskId: id, lastRun: view(lastRun), lastResult: view(lastResult) };
      }),
    );
  }

  async statsSeries(tenantId: string, query: { windowMs?: number; bucketMs?: number; taskId?: number }): Promise<StatsSeriesView> {
    const windowMs = query.windowMs ?? 3600_000;
    const bucketMs = Math.max(query.bucketMs ?? 60_000, Math.ceil(windowMs / MAX_BUCKETS / 1000) * 1000);
    const taskId = query.taskId ?? null;
    if (taskId !== null) {
      const exists = await this.dataSource.getRepository(TaskEntity).existsBy({ id: taskId, tenantId });
      if (!exists) throw notFound('Task', taskId);
    }
    const to = this.clock.now();
    const from = Math.floor((to - windowMs) / bucketMs) * bucketMs;
    const qb = this.dataSource
      .getRepository(RunEntity)
      .createQueryBuilder('r')
      .select(['r.id', 'r.state', 'r.attempt', 'r.scheduledAt', 'r.dueAt', 'r.dispatchedAt', 'r.startedAt', 'r.finishedAt'])
      .where('r.tenantId = :tenantId', { tenantId })
      .andWhere('r.scheduledAt >= :from AND r.scheduledAt <= :to', { from, to });
    if (taskId !== null) qb.andWhere('r.taskId = :taskId', { taskId });
    const rows = await qb.orderBy('r.scheduledAt', 'DESC').addOrderBy('r.id', 'DESC').take(MAX_SERIES_ROWS + 1).getMany();
    const sampled = rows.length > MAX_SERIES_ROWS;
    const n = Math.floor((to - from) / bucketMs) + 1;
    const acc = Array.from({ length: n }, () => ({ counts: {} as Partial<Record<RunState, number>>, durations: [] as number[], lateness: [] as number[] }));
    for (const r of sampled ? rows.slice(0, MAX_SERIES_ROWS) : rows) {
      const b = acc[Math.min(n - 1, Math.floor((r.scheduledAt - from) / bucketMs))];
      b.counts[r.state] = (b.counts[r.state] ?? 0) + 1;
      if (r.startedAt !== null && r.finishedAt !== null) b.durations.push(r.finishedAt - r.startedAt);
      const late = firstAttemptLateness(r);
      if (late !== null) b.lateness.push(late);
    }
    const buckets: SeriesBucketView[] = acc.map((b, i) => {
      const ok = b.counts.SUCCEEDED ?? 0;
      const finished = ok + (b.counts.FAILED ?? 0) + (b.counts.TIMED_OUT ?? 0);
      const d = distribution(b.durations);
      const l = distribution(b.lateness);
      return {
        t: from + i * bucketMs,
        counts: b.counts,
        successRate: finished === 0 ? null : ok / finished,
        durationP50: d.p50,
        durationP95: d.p95,
        latenessP50: l.p50,
        latenessP95: l.p95,
      };
    });
    return { taskId, from, to, bucketMs, buckets, sampled };
  }
}

function notIn(states: RunState[]) {
  return Not(In(states));
}
