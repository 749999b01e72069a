import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '@baton/domain';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';

/**
 * When this node last proved in the database that it lives (the time its heartbeat row states),
 * for the loops that act on its behalf. A proof older than engineDeadAfterMs — the process was
 * frozen, its database did not answer — means survivors may have declared it DOWN and taken its
 * runs meanwhile: it heartbeats, and so learns whether they did, before it claims again. The runs
 * it still holds in memory need no such check: every write it makes about them is guarded on
 * their owner in the database (fencing), so a run taken over is never sent by it.
 */
@Injectable()
export class NodeLiveness {
  private provenAt: number | null = null;

  constructor(
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Its heartbeat row now states `at`. */
  proven(at: number): void {
    this.provenAt = at;
  }

  /** Whether the node has proven it lives, recently enough: registered, and not lapsed. */
  get live(): boolean {
    return this.provenAt !== null && !this.lapsed;
  }

  /** Whether the last proof is too old to be sure the node is still UP (false before the first: not registered yet). */
  get lapsed(): boolean {
    return this.provenAt !== null && this.clock.now() - this.provenAt >= this.config.engineDeadAfterMs;
  }
}
