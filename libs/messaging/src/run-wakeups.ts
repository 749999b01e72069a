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
  /** The engine of the console's own process that serves `engineGroup`, for runs written already sent (DirectStarts); null: none. */
  startsFor?(engineGroup: string): DirectStarts | null;
}

/** Runs a console is about to write that its process's engine could send at once: how many, of which task. */
export interface StartRequest {
  tenantId: string;
  engineGroup: string;
  executorApp: string;
  taskId: number;
  count: number;
}

/** Where those runs go: their rows are written DISPATCHED to these executors, held by this engine under this lease. */
export interface StartPlan {
  /** The engine's node id: the rows' claimed_by. */
  nodeId: string;
  leaseUntil: number;
  /** One executor a run, in the order asked. */
  executorIds: number[];
}

/**
 * A console's runs written already sent (DISPATCHED, with their executor and this engine's
 * lease) when the engine of its own process can send them at once: the engine's DISPATCHED mark,
 * a row update and a statement after the commit on every run's way, is not needed. `plan` writes
 * nothing and reserves nothing (null: write them PENDING, as any); `take` hands the engine the
 * runs once their transaction has committed (their rows as WakeRunRow, as a wake-up carries them).
 */
export interface DirectStarts {
  plan(request: StartRequest): StartPlan | null;
  take(tenantId: string, runs: readonly WakeRunRow[], mark: { at: number; leaseUntil: number }): void;
}

/** Console and engine in one process: a wake-up is a function call to the engine's listeners. */
export class InProcessWakeups implements RunWakeups {
  private readonly listeners: Array<(wakeup: RunWakeup) => void> = [];
  private readonly cancelListeners: Array<(cancels: RunCancels) => void> = [];
  private starts: DirectStarts | null = null;

  /** The engine's side of DirectStarts (its groups: the console asks only for those). */
  serveStarts(starts: DirectStarts): void {
    this.starts = starts;
  }

  startsFor(): DirectStarts | null {
    return this.starts;
  }

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
