import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CLOCK, type Clock } from '@baton/domain';
import { findUpEngineNodes, TableSnapshot, type EngineNodeRow } from '@baton/persistence';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';

/** engine_nodes is re-read at most this often (a handful of rows): a dead engine's share of each tenant goes back to the others within this of its takeover. */
const REFRESH_MS = 500;

/**
 * The other live engines, as engine_nodes said at most REFRESH_MS ago: their callback URLs
 * (CallbackUrls), how many engines share this node's groups (the claimer's fair share), and
 * whose liveness locks to check (TakeoverService.runByLocks).
 * Read in the background; a caller never waits for it — before the first read it knows of no
 * peer, which only makes this node claim as if alone for a moment.
 */
@Injectable()
export class GroupPeers {
  private readonly logger = new Logger('GroupPeers');
  private readonly table: TableSnapshot<EngineNodeRow[]>;

  constructor(
    dataSource: DataSource,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.table = new TableSnapshot(async () => (await findUpEngineNodes(dataSource.manager)).filter((r) => r.id !== config.nodeId), {
      initial: [],
      now: () => clock.now(),
      onError: (err) => this.logger.warn(`reading engine nodes failed: ${err.message}`),
    });
  }

  /** Other UP engines serving `group` (heartbeat fresh or not: a callback may still reach one). */
  others(group: string): EngineNodeRow[] {
    return this.table.refreshIfOlder(REFRESH_MS).filter((n) => n.groups.includes(group));
  }

  /**
   * Every other UP engine, whatever its groups: whose liveness locks the takeover checks every
   * BATON_LIVENESS_POLL_MS. Only the first call waits for a read; an engine that starts is among
   * them within REFRESH_MS.
   */
  all(): Promise<EngineNodeRow[]> {
    return this.table.current(REFRESH_MS);
  }

  /** The other UP engines' URLs, whatever their groups (no executor may be registered at one: ClusterAddressGuard). */
  urls(): string[] {
    return this.table.refreshIfOlder(REFRESH_MS).map((n) => n.url);
  }

  /** Engines with a fresh heartbeat that serve any of this node's groups, this node included. */
  sharing(): number {
    const nodes = this.table.refreshIfOlder(REFRESH_MS);
    const now = this.clock.now();
    const mine = new Set(this.config.groups);
    return 1 + nodes.filter((n) => now - n.heartbeatAt < this.config.engineDeadAfterMs && n.groups.some((g) => mine.has(g))).length;
  }

  /** Re-reads engine_nodes now (callers normally let it happen in the background). */
  refresh(): Promise<void> {
    return this.table.refresh();
  }
}
