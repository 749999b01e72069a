import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { CLOCK, type Clock } from '@baton/domain';
import type { RunWakeup } from '@baton/messaging';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import { WakeFloor } from './wake-floor';

/**
 * Notice that runs of a tenant are due now and nobody has claimed them, so the claimer claims at
 * once instead of at its next poll (BATON_CLAIM_INTERVAL_MS: up to 200 ms of lateness each).
 * From this node (a fan-out run's shards, a flow's children, a retry due before the next poll),
 * and from the console (a manual trigger: `wake`, over POST /baton/wake or in-process). Other
 * engines of the group find this node's runs by their poll, as they find any new run.
 * A wake-up that names its runs without bringing their rows goes through a per-tenant floor
 * (BATON_WAKE_FLOOR_MS, WakeFloor): a tenant signing wake-ups back to back gets one claim by id or
 * turn per floor, not one per request. One that brings them (`carried`: a console's, in-process or
 * proving this node's wake key; WokenRows) claims at once: its claim reads nothing, the DISPATCHED
 * mark that claims its runs is batched with the others in flight (DispatchMarks), and a console
 * writes a tenant's submissions in at most 2 transactions at a time (GroupCommit), each one
 * wake-up. Through the floor such a run waited 7–10 ms at the median from 100 submissions a second
 * on (the floor's burst spent), the largest step of its way to its executor; taken at once, `submit`
 * and `emit` at 500 and 1,000 a second start 12–19 ms after they are sent instead of 23–32, for
 * 8–16 % more CPU a run, most of it the executors' (more requests, fewer runs each: bench on-demand
 * --baton-nodes, 2026-12-06, docs/BENCHMARKS.md).
 */
@Injectable()
export class ClaimSignal implements OnModuleDestroy {
  private readonly listeners: Array<(tenantId: string, runIds?: readonly number[]) => void> = [];
  private readonly floor: WakeFloor;

  constructor(
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.floor = new WakeFloor(config.wakeFloorMs, clock, (tenantId, runIds) => this.due(tenantId, runIds));
  }

  onDue(listener: (tenantId: string, runIds?: readonly number[]) => void): void {
    this.listeners.push(listener);
  }

  /** Runs of `tenantId` due within the look-ahead were committed (those of `runIds`, when named): claim them now. */
  due(tenantId: string, runIds?: readonly number[]): void {
    for (const listener of this.listeners) listener(tenantId, runIds);
  }

  /**
   * A wake-up from the console: claims now when the run falls in this node's look-ahead and its
   * group is one this node serves. A run due later is found by a poll in time anyway (the
   * look-ahead is longer than the poll period). Returns whether it claims (now, or, for one that
   * did not bring its runs' rows (`carried` false), at the end of the tenant's floor window when it
   * was woken less than BATON_WAKE_FLOOR_MS ago).
   */
  wake(wakeup: RunWakeup, carried = false): boolean {
    if (!this.config.groups.includes(wakeup.engineGroup)) return false;
    if (wakeup.dueAt > this.clock.now() + this.config.lookAheadMs) return false;
    if (carried && wakeup.runIds && wakeup.runIds.length > 0) this.due(wakeup.tenantId, wakeup.runIds);
    else this.floor.wake(wakeup.tenantId, wakeup.runIds);
    return true;
  }

  onModuleDestroy(): void {
    this.floor.clear();
  }
}
