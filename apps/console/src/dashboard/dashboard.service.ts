import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { countOpenAlarms } from '@baton/persistence';
import { LoadService } from '../load/load.service';
import { StatsService } from '../stats/stats.service';
import type { DashboardView } from './dto/dashboard.dto';

/** The dashboard's run window. */
const HOUR_MS = 3_600_000;
/** Open alarms are counted up to this. */
const OPEN_ALARMS_CAP = 1000;

/**
 * A tenant's home page in one call: the statistics of the last hour (from the rollups, as
 * /api/stats), its load (as /api/load: capped index counts) and its open alarms (a capped count).
 */
@Injectable()
export class DashboardService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly stats: StatsService,
    private readonly load: LoadService,
  ) {}

  async of(tenantId: string): Promise<DashboardView> {
    const [stats, load, openAlarms] = await Promise.all([
      this.stats.forTenant(tenantId, HOUR_MS),
      this.load.ofTenant(tenantId),
      countOpenAlarms(this.dataSource.manager, { tenantId, cap: OPEN_ALARMS_CAP }),
    ]);
    const [own] = load.items;
    return {
      tenantId,
      at: stats.to,
      windowMs: HOUR_MS,
      runs: stats.counts,
      successRate: stats.successRate,
      latenessP95Ms: stats.latenessMs.p95,
      openAlarms,
      executorsUp: own.executors.up,
      backlog: { due: own.due, held: own.held, inFlight: own.inFlight, oldestDueAgeMs: own.oldestDueAgeMs },
    };
  }
}
