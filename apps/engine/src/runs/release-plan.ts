import type { HeldRunRow } from '@baton/persistence';

/** What becomes of runs an engine held when they are given back (takeover, expired lease, shutdown). */
export interface ReleasePlan {
  /** Back to PENDING; claimable again. DISPATCHED ones keep their executor_id. */
  pending: HeldRunRow[];
  /** CLAIMED → SKIPPED: too late, and the task's misfire policy says not to fire them. */
  skipped: Array<{ run: HeldRunRow; reason: string }>;
}

/** The error text of runs skipped by policy SKIP on release (one text, so one UPDATE for them all). */
export const SKIP_REASON = 'Skipped: later than the misfire threshold when taken over from its engine (misfire policy SKIP)';

/**
 * Applies the tasks' misfire policies to held runs that are given back. A run is late when its
 * due time passed by more than its task's misfire threshold while the engine holding it was
 * gone — the same rule the planner applies to fire times nobody planned in time:
 * - SKIP: late runs are SKIPPED;
 * - FIRE_ONCE_NOW: of one task's late runs only the latest (by scheduled time) fires, the
 *   others are SKIPPED — one catch-up run stands for them all;
 * - FIRE_ALL_MISSED: every late run fires.
 * Only first attempts of scheduled fires are subject to it: a manual run was asked for, a
 * dependency run belongs to a flow that waits for it, a retry is the continuation of a run that
 * already fired. DISPATCHED runs are never skipped — the executor may be running them (and the
 * state machine has no DISPATCHED → SKIPPED): they go back to PENDING with their executor, which
 * de-duplicates the re-send. A run whose task is gone goes back to PENDING; the claimer cancels it.
 */
export function planRelease(runs: readonly HeldRunRow[], now: number): ReleasePlan {
  const pending: HeldRunRow[] = [];
  const skipped: ReleasePlan['skipped'] = [];
  const lateOnceNow = new Map<number, HeldRunRow[]>();
  for (const run of runs) {
    const lateBy = now - run.dueAt;
    const subject = run.state === 'CLAIMED' && run.cause === 'SCHEDULE' && run.attempt === 1 && run.misfirePolicy !== null;
    const late = subject && lateBy > Math.max(0, run.misfireThresholdMs ?? 0);
    if (!late || run.misfirePolicy === 'FIRE_ALL_MISSED') {
      pending.push(run);
    } else if (run.misfirePolicy === 'SKIP') {
      skipped.push({ run, reason: SKIP_REASON });
    } else {
      const list = lateOnceNow.get(run.taskId) ?? [];
      list.push(run);
      lateOnceNow.set(run.taskId, list);
    }
  }
  for (const list of lateOnceNow.values()) {
    list.sort((a, b) => b.scheduledAt - a.scheduledAt || b.id - a.id);
    const [latest, ...older] = list;
    pending.push(latest);
    for (const run of older) {
      skipped.push({
        run,
        reason: `Skipped: later than the misfire threshold when taken over from its engine; run ${latest.id} fires once for the missed times (misfire policy FIRE_ONCE_NOW)`,
      });
    }
  }
  return { pending, skipped };
}
