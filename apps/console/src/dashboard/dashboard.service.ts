import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { countOpenAlarms, listTenants } from '@baton/persistence';
import { decodeKeyCursor, encodeKeyCursor, type Page } from '../common/cursor';
import { LoadService } from '../load/load.service';
import { mapAtMost } from '../common/map-at-most';
import { StatsService } from '../stats/stats.service';
import type { DashboardView } from './dto/dashboard.dto';

/** The dashboard's run window. */
const HOUR_MS = 3_600_000;
/** Open alarms are counted up to this. */
const OPEN_ALARMS_CAP = 1000;
/** Tenants whose dashboards are read at once for the operator's overview: each is three indexed reads. */
const OVERVIEW_CONCURRENCY = 4;

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
      earlyStarts: stats.earlyStarts,
      openAlarms,
      executorsUp: own.executors.up,
      backlog: { due: own.due, held: own.held, inFlight: own.inFlight, sentAhead: own.sentAhead, oldestDueAgeMs: own.oldestDueAgeMs },
    };
  }

  /**
   * The operator's overview: the dashboards of a page of tenants, by id. A page, not every
   * tenant at once: each dashboard is a few reads, so the cost of one call is bounded by `limit`.
   */
  async ofTenants(page: { cursor?: string; limit: number }): Promise<Page<DashboardView>> {
    const after = page.cursor === undefined ? null : decodeKeyCursor(page.cursor);
    const ids = (await listTenants(this.dataSource.manager)).map((t) => t.id).filter((id) => after === null || id > after);
    const slice = ids.slice(0, page.limit);
    const items = await mapAtMost(slice, OVERVIEW_CONCURRENCY, (id) => this.of(id));
    return { items, nextCursor: ids.length > slice.length ? encodeKeyCursor(slice[slice.length - 1]) : null };
  }
}
