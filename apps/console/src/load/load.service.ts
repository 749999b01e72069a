import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { LOAD_COUNT_CAP } from '@baton/domain';
import { findLoadTenants, readLoadBoard, type LoadTenantRow } from '@baton/persistence';
import { notFound } from '../common/api-error';
import { CLOCK, type Clock } from '../common/clock';
import { DEFAULT_LOAD_BOARD_TENANTS, type LoadBoardView } from './dto/load.dto';

/**
 * Tenants' load read from the database (true across the cluster, whichever console answers):
 * libs/persistence/src/load-queries — index ranges and counts capped at LOAD_COUNT_CAP, so a
 * call costs the same with a 100,000-run backlog as with a 10,001-run one.
 */
@Injectable()
export class LoadService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The tenant's own load: a board of one. */
  async ofTenant(tenantId: string): Promise<LoadBoardView> {
    const tenants = await findLoadTenants(this.dataSource.manager, { tenantId });
    if (tenants.length === 0) throw notFound('Tenant', tenantId);
    return this.board(tenants, 1);
  }

  /** Every tenant, the oldest due run first; the first `limit` counted. */
  async ofAll(limit = DEFAULT_LOAD_BOARD_TENANTS): Promise<LoadBoardView> {
    return this.board(await findLoadTenants(this.dataSource.manager), limit);
  }

  private async board(tenants: LoadTenantRow[], limit: number): Promise<LoadBoardView> {
    const at = this.clock.now();
    const { top } = await readLoadBoard(this.dataSource.manager, { tenants, now: at, limit, cap: LOAD_COUNT_CAP });
    return { at, countCap: LOAD_COUNT_CAP, tenants: tenants.length, items: top };
  }
}
