import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { RUN_STATES, type RunState } from '@baton/domain';
import { RunEntity, TaskEntity } from '@baton/persistence';
import { notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import { DEFAULT_STATS_WINDOW_MS, StatsView } from './dto/stats.dto';
import { firstAttemptLateness, retryWait } from './lateness';
import { distribution } from './percentiles';

/** Percentiles are computed over at most this many runs (the newest of the window). */
export const MAX_PERCENTILE_ROWS = 100_000;

@Injectable()
export class StatsService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async forTask(tenantId: string, taskId: number, windowMs?: number): Promise<StatsView> {
    const exists = await this.dataSource
      .getRepository(TaskEntity)
      .createQueryBuilder('t')
      .where('t.id = :taskId AND t.tenantId = :tenantId', { taskId, tenantId })
      .getExists();
    if (!exists) throw notFound('Task', taskId);
    return this.compute(tenantId, taskId, windowMs ?? DEFAULT_STATS_WINDOW_MS);
  }

  forTenant(tenantId: string, windowMs?: number): Promise<StatsView> {
    return this.compute(tenantId, null, windowMs ?? DEFAULT_STATS_WINDOW_MS);
  }

  /**
   * Counts by state come from a GROUP BY. Percentiles are computed here, in JS, over the
   * window's rows (at most MAX_PERCENTILE_ROWS, newest first): simple and exact for console-sized
   * windows. For long windows on big tenants this belongs in pre-aggregated buckets — later.
   */
  private async compute(tenantId: string, taskId: number | null, windowMs: number): Promise<StatsView> {
    const to = this.clock.now();
    const from = to - windowMs;
    const base = () => {
      const qb = this.dataSource
        .getRepository(RunEntity)
        .createQueryBuilder('r')
        .where('r.tenantId = :tenantId', { tenantId })
        .andWhere('r.scheduledAt >= :from AND r.scheduledAt <= :to', { from, to });
      if (taskId !== null) qb.andWhere('r.taskId = :taskId', { taskId });
      return qb;
    };
    const grouped = await base().select('r.state', 'state').addSelect('COUNT(*)', 'n').groupBy('r.state').getRawMany<{ state: RunState; n: string | number }>();
    const counts = Object.fromEntries(RUN_STATES.map((s) => [s, 0])) as Record<RunState, number>;
    for (const g of grouped) counts[g.state] = Number(g.n);
    const total = Object.values(counts).reduce((a, b) => a + b, 0);

    const rows = await base()
      .select(['r.id', 'r.attempt', 'r.scheduledAt', 'r.dueAt', 'r.dispatchedAt', 'r.startedAt', 'r.finishedAt'])
      .andWhere('(r.dispatchedAt IS NOT NULL OR r.finishedAt IS NOT NULL)')
      .orderBy('r.scheduledAt', 'DESC')
      .addOrderBy('r.id', 'DESC')
      .take(MAX_PERCENTILE_ROWS + 1)
      .getMany();
    const sampled = rows.length > MAX_PERCENTILE_ROWS;
    const used = sampled ? rows.slice(0, MAX_PERCENTILE_ROWS) : rows;
    const durations: number[] = [];
    const lateness: number[] = [];
    const retryWaits: number[] = [];
    for (const r of used) {
      if (r.startedAt !== null && r.finishedAt !== null) durations.push(r.finishedAt - r.startedAt);
      const late = firstAttemptLateness(r);
      if (late !== null) lateness.push(late);
      const waited = retryWait(r);
      if (waited !== null) retryWaits.push(waited);
    }
    const finished = counts.SUCCEEDED + counts.FAILED + counts.TIMED_OUT;
    return {
      taskId,
      windowMs,
      from,
      to,
      total,
      counts,
      successRate: finished === 0 ? null : counts.SUCCEEDED / finished,
      durationMs: distribution(durations),
      latenessMs: distribution(lateness),
      retryWaitMs: distribution(retryWaits),
      sampled,
    };
  }
}
