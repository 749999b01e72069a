import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { bucketStart, estimate, PERCENTILE_ERROR, RUN_STATES, successRate, type RunState } from '@baton/domain';
import { countLiveRuns, findTenant, taskExists } from '@baton/persistence';
import { notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import { DEFAULT_STATS_WINDOW_MS, StatsView } from './dto/stats.dto';
import { mergeAll, readWindowCells, spanFor } from './rollup-reader';

@Injectable()
export class StatsService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async forTask(tenantId: string, taskId: number, windowMs?: number): Promise<StatsView> {
    if (!(await taskExists(this.dataSource.manager, tenantId, taskId))) throw notFound('Task', taskId);
    return this.compute(tenantId, taskId, windowMs ?? DEFAULT_STATS_WINDOW_MS);
  }

  forTenant(tenantId: string, windowMs?: number): Promise<StatsView> {
    return this.compute(tenantId, null, windowMs ?? DEFAULT_STATS_WINDOW_MS);
  }

  /**
   * Ended runs come from the rollups (minutes for windows up to 6 h, hours above; the window's
   * start is rounded down to one), plus the few seconds not rolled up yet read from the runs;
   * runs still going are counted from the live runs of the tenant's group. Percentiles are
   * estimated from the rollups' histograms: at most PERCENTILE_ERROR above the true value.
   */
  private async compute(tenantId: string, taskId: number | null, windowMs: number): Promise<StatsView> {
    const to = this.clock.now();
    const spanMs = spanFor(windowMs);
    const from = bucketStart(to - windowMs, spanMs);
    const tenant = await findTenant(this.dataSource.manager, tenantId);
    if (!tenant) throw notFound('Tenant', tenantId);
    const [{ cells, sampled }, live] = await Promise.all([
      readWindowCells(this.dataSource.manager, { tenantId, taskId, from, to, spanMs }),
      countLiveRuns(this.dataSource.manager, { tenantId, engineGroup: tenant.engineGroup, taskId }),
    ]);
    const ended = mergeAll(cells.values());
    const counts = Object.fromEntries(RUN_STATES.map((s) => [s, 0])) as Record<RunState, number>;
    Object.assign(counts, ended.counts, live);
    return {
      taskId,
      windowMs,
      from,
      to,
      total: Object.values(counts).reduce((a, b) => a + b, 0),
      counts,
      successRate: successRate(ended.counts),
      earlyStarts: ended.earlyStarts,
      durationMs: estimate(ended.duration),
      latenessMs: estimate(ended.lateness),
      retryWaitMs: estimate(ended.retryWait),
      percentileError: PERCENTILE_ERROR,
      sampled,
    };
  }
}
