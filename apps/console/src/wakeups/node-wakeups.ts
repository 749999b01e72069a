import type { OnModuleDestroy } from '@nestjs/common';
import type { DirectStarts, RunCancels, RunWakeup, RunWakeups } from '@baton/messaging';

/**
 * Wake-ups of a console whose process also runs an engine (embedded mode, and `baton node`: a
 * node of a cluster on MySQL/MariaDB). A wake-up for a group the local engine serves is a call to
 * it (`local`, InProcessWakeups): no signed request, no other process on a run's way — on demand
 * at 500 submissions a second that took a run's CPU over all processes from 3.18–3.26 to 2.28–2.34 ms
 * (docs/BENCHMARKS.md, on demand: a cluster of nodes). The others' runs are woken over HTTP
 * (`remote`, EngineWakeups). No hedge to other engines: the local engine lives and dies with the
 * console that wrote the run, and their polls stay the safety net. A cancel notice goes to the
 * local engine by a call and to every other live engine of the group over HTTP: any of them may
 * hold a run sent ahead (`remote` leaves the local node out).
 */
export class NodeWakeups implements RunWakeups, OnModuleDestroy {
  constructor(
    private readonly local: RunWakeups,
    /** The groups the local engine serves (BATON_ENGINE_GROUPS). */
    private readonly localGroups: readonly string[],
    private readonly remote: RunWakeups & Partial<OnModuleDestroy>,
  ) {}

  wake(wakeup: RunWakeup): void {
    if (this.localGroups.includes(wakeup.engineGroup)) this.local.wake(wakeup);
    else this.remote.wake(wakeup);
  }

  /** The local engine's, for a group it serves (runs of other groups go PENDING and are woken over HTTP). */
  startsFor(engineGroup: string): DirectStarts | null {
    return this.localGroups.includes(engineGroup) ? (this.local.startsFor?.(engineGroup) ?? null) : null;
  }

  cancelled(cancels: RunCancels): void {
    this.local.cancelled(cancels);
    this.remote.cancelled(cancels);
  }

  onModuleDestroy(): void {
    void this.remote.onModuleDestroy?.();
  }
}
