import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CLOCK, type Clock } from '@baton/domain';
import { findClaimTenants, type ClaimTenantRow } from '@baton/persistence';
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
  private rows: ClaimTenantRow[] = [];
  private loadedAt = -Infinity;
  private loading: Promise<void> | null = null;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The tenants, sorted by id; re-read first when never read, in the background when old. */
  async current(): Promise<readonly ClaimTenantRow[]> {
    if (this.loadedAt === -Infinity) await this.refresh();
    else if (this.clock.now() - this.loadedAt >= REFRESH_MS) void this.refresh();
    return this.rows;
  }

  /** Re-reads now (concurrent callers share one read); a failed read keeps the last list. */
  refresh(): Promise<void> {
    this.loading ??= findClaimTenants(this.dataSource.manager, this.config.groups)
      .then((rows) => {
        this.rows = rows;
      })
      .catch((err: Error) => this.logger.warn(`reading the tenants failed, claiming for the last list: ${err.message}`))
      .finally(() => {
        this.loadedAt = this.clock.now();
        this.loading = null;
      });
    return this.loading;
  }
}
