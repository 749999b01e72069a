import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '@baton/domain';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';

/**
 * How many heartbeat periods between two of the node's heartbeats make a break in its recording:
 * more than one turn of its heartbeat loop failed or hung (its database did not answer) or did not
 * run (its process was frozen).
 */
export const RECORDING_BREAK_PERIODS = 2;

/**
 * When this node last proved in the database that it lives (the time its heartbeat row states),
 * for the loops that act on its behalf. A proof older than engineDeadAfterMs — the process was
 * frozen, its database did not answer — means survivors may have declared it DOWN and taken its
 * runs meanwhile: it heartbeats, and so learns whether they did, before it claims again. The runs
 * it still holds in memory need no such check: every write it makes about them is guarded on
 * their owner in the database (fencing), so a run taken over is never sent by it.
 *
 * The same proofs say since when the node has been able to record what it is sent (recordingSince):
 * while its database was down it answered executors' heartbeats 500 and could not write them, so
 * their silence then is its own, not theirs (the watchdog's EXECUTOR_DOWN).
 */
@Injectable()
export class NodeLiveness {
  private provenAt: number | null = null;
  /** The first proof of the current stretch without a break. */
  private stretchFrom: number | null = null;

  constructor(
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Its heartbeat row now states `at`. */
  proven(at: number): void {
    if (this.provenAt === null || at - this.provenAt > this.breakMs) this.stretchFrom = at;
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

  /**
   * Since when the node has been writing to its database without a break (its registration, or
   * its first heartbeat after a break: RECORDING_BREAK_PERIODS): what it was sent before may not
   * have been recorded. Now while its last heartbeat is older than a break (not proven to record
   * now); null before it registered (nothing known: only a node that registered runs the loops).
   */
  recordingSince(): number | null {
    if (this.provenAt === null) return null;
    const now = this.clock.now();
    return now - this.provenAt > this.breakMs ? now : this.stretchFrom;
  }

  private get breakMs(): number {
    return RECORDING_BREAK_PERIODS * this.config.heartbeatMs;
  }
}
