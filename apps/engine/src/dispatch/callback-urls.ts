import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CLOCK, type Clock } from '@baton/domain';
import { findUpEngineNodes } from '@baton/persistence';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';

/** The other engines' URLs are re-read this often. */
const REFRESH_MS = 10_000;
/** Most callback URLs named in one DispatchRequest. */
const MAX_URLS = 4;

/**
 * The `callbackUrls` of a DispatchRequest: this node first (config.publicUrl — set by
 * startEngine once the server listens), then other UP engines serving the run's group, so a
 * callback still lands if this node dies while the work runs. Read from engine_nodes in the
 * background; a dispatch never waits for it.
 */
@Injectable()
export class CallbackUrls {
  private readonly logger = new Logger('CallbackUrls');
  private nodes: Array<{ url: string; groups: string[] }> = [];
  private loadedAt = -Infinity;
  private refreshing = false;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  get own(): string {
    return (this.config.publicUrl ?? `http://${this.config.host}:${this.config.port}`).replace(/\/+$/, '');
  }

  urls(group: string): string[] {
    if (this.clock.now() - this.loadedAt > REFRESH_MS) this.refresh();
    const own = this.own;
    const others = this.nodes.filter((n) => n.groups.includes(group)).map((n) => n.url.replace(/\/+$/, '')).filter((u) => u !== own);
    return [own, ...new Set(others)].slice(0, MAX_URLS);
  }

  private refresh(): void {
    if (this.refreshing) return;
    this.refreshing = true;
    findUpEngineNodes(this.dataSource.manager)
      .then((rows) => {
        this.nodes = rows.filter((r) => r.id !== this.config.nodeId).map((r) => ({ url: r.url, groups: r.groups }));
        this.loadedAt = this.clock.now();
      })
      .catch((err: Error) => {
        this.loadedAt = this.clock.now();
        this.logger.warn(`reading engine nodes failed: ${err.message}`);
      })
      .finally(() => (this.refreshing = false));
  }
}
