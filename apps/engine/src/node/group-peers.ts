import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CLOCK, type Clock } from '@baton/domain';
import { findUpEngineNodes, type EngineNodeRow } from '@baton/persistence';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';

/** engine_nodes is re-read at most this often (a handful of rows): a dead engine's share of each tenant goes back to the others within this of its takeover. */
const REFRESH_MS = 500;

/**
 * The other live engines, as engine_nodes said at most REFRESH_MS ago: their callback URLs
 * (CallbackUrls) and how many engines share this node's groups (the claimer's fair share).
 * Read in the background; a caller never waits for it — before the first read it knows of no
 * peer, which only makes this node claim as if alone for a moment.
 */
@Injectable()
export class GroupPeers {
  private readonly logger = new Logger('GroupPeers');
  private nodes: EngineNodeRow[] = [];
  private loadedAt = -Infinity;
  private refreshing = false;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Other UP engines serving `group` (heartbeat fresh or not: a callback may still reach one). */
  others(group: string): EngineNodeRow[] {
    this.refreshIfOld();
    return this.nodes.filter((n) => n.groups.includes(group));
  }

  /** Engines with a fresh heartbeat that serve any of this node's groups, this node included. */
  sharing(): number {
    this.refreshIfOld();
    const now = this.clock.now();
    const mine = new Set(this.config.groups);
    return 1 + this.nodes.filter((n) => now - n.heartbeatAt < this.config.engineDeadAfterMs && n.groups.some((g) => mine.has(g))).length;
  }

  /** Re-reads engine_nodes now (callers normally let it happen in the background). */
  async refresh(): Promise<void> {
    this.refreshing = true;
    try {
      this.nodes = (await findUpEngineNodes(this.dataSource.manager)).filter((r) => r.id !== this.config.nodeId);
    } catch (err) {
      this.logger.warn(`reading engine nodes failed: ${(err as Error).message}`);
    } finally {
      this.loadedAt = this.clock.now();
      this.refreshing = false;
    }
  }

  private refreshIfOld(): void {
    if (!this.refreshing && this.clock.now() - this.loadedAt >= REFRESH_MS) void this.refresh();
  }
}
