import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CLOCK, type Clock } from '@baton/domain';
import { findClaimTenants, TableSnapshot, type ClaimTenantRow } from '@baton/persistence';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';

/** Tenants and their executors' room are re-read at most this often: an executor coming up counts within a second. */
const REFRESH_MS = 1_000;

/**
 * The tenants this node's groups serve, each with its claim share and the room its UP executors
 * advertise (findClaimTenants), as the claimer divides capacity. Read at most once a REFRESH_MS,
 * awaited only by the first claim (before it the engine knows of no tenant to claim for).
 */
@Injectable()
export class ClaimTenants {
  private readonly logger = new Logger('ClaimTenants');
  private readonly table: TableSnapshot<ClaimTenantRow[]>;

  constructor(dataSource: DataSource, @Inject(ENGINE_CONFIG) config: EngineConfig, @Inject(CLOCK) clock: Clock) {
    this.table = new TableSnapshot(() => findClaimTenants(dataSource.manager, config.groups), {
      initial: [],
      now: () => clock.now(),
      onError: (err) => this.logger.warn(`reading the tenants failed, claiming for the last list: ${err.message}`),
    });
  }

  /** The tenants, sorted by id; read first when never read, in the background when old. */
  async current(): Promise<readonly ClaimTenantRow[]> {
    return this.table.current(REFRESH_MS);
  }

  /** Re-reads now (concurrent callers share one read); a failed read keeps the last list. */
  refresh(): Promise<void> {
    return this.table.refresh();
  }
}
