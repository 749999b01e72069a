import type { WakeRunRow } from '@baton/protocol';

/**
 * A run of `tenantId` became due sooner than an engine's next claim poll would find it (a manual
 * trigger, a run created through the API): the engines that can fire it are told at once, and
 * polling stays the safety net (a wake-up lost on the way costs at most BATON_CLAIM_INTERVAL_MS).
 */
export interface RunWakeup {
  tenantId: string;
  /** The tenant's engine group: only its engines are woken. */
  engineGroup: string;
  /** When the run is due (epoch ms). An engine claims ahead only what falls in its look-ahead. */
  dueAt: number;
  /**
   * The runs made due, when the writer knows them (a manual trigger, a re-run): an engine with
   * room claims these by id instead of searching the tenant's due runs. At most MAX_WAKE_RUNS
   * (@baton/protocol); absent, the engine reads the tenant in its next claim turn.
   */
  runIds?: readonly number[];
  /**
   * Those runs as the writer committed them (WakeRunRow, @baton/protocol), when it has them all
   * (a submission's): the woken engine dispatches them without reading them back.
   */
  runs?: readonly WakeRunRow[];
}

/**
 * How wake-ups travel from where runs are written (the console) to the engines. Two adapters:
 * InProcessWakeups when console and engine share a process (embedded mode), and the console's
 * signed HTTP wake-up to each live engine of the group otherwise (apps/console/src/wakeups).
 */
/**
 * Runs of `tenantId` the console cancelled after an engine had sent them to an executor (a run sent
 * ahead of its instant waits there for it): the engines ask the executors to abort them.
 */
export interface RunCancels {
  tenantId: string;
  /** The tenant's engine group: only its engines are told. */
  engineGroup: string;
  runIds: number[];
}

export interface RunWakeups {
  /** Fire and forget: never throws, never waits for an engine. */
  wake(wakeup: RunWakeup): void;
  /** Fire and forget, as `wake`. */
  cancelled(cancels: RunCancels): void;
}

/** Console and engine in one process: a wake-up is a function call to the engine's listeners. */
export class InProcessWakeups implements RunWakeups {
  private readonly listeners: Array<(wakeup: RunWakeup) => void> = [];
  private readonly cancelListeners: Array<(cancels: RunCancels) => void> = [];

  listen(listener: (wakeup: RunWakeup) => void): void {
    this.listeners.push(listener);
  }

  listenCancelled(listener: (cancels: RunCancels) => void): void {
    this.cancelListeners.push(listener);
  }

  wake(wakeup: RunWakeup): void {
    for (const listener of this.listeners) listener(wakeup);
  }

  cancelled(cancels: RunCancels): void {
    for (const listener of this.cancelListeners) listener(cancels);
  }
}
