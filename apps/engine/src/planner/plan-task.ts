import { planFires } from '@baton/domain';
import type { ExclusionCalendar, Schedule } from '@baton/domain';
import { triggerFromColumns } from '@baton/persistence';
import type { DueTaskRow, PlannedRunRow, TaskAdvance } from '@baton/persistence';

/** The most run rows one task yields per planning pass; the rest wait for the next pass (its next_fire_at stays due). */
export const MAX_RUNS_PER_TASK_PER_PASS = 100;

export interface TaskPlan {
  runs: PlannedRunRow[];
  advance: TaskAdvance;
}

/** The fire key of a scheduled fire: its scheduled time, so (task, fire key) is (task, scheduled time). */
export function scheduledFireKey(scheduledAt: number): string {
  return `s:${scheduledAt}`;
}

export const SKIPPED_MISFIRE_REASON = 'Skipped: missed by more than the misfire threshold (misfire policy SKIP)';

/**
 * Turns one claimed task into run rows and its new planner state, with the domain's planFires
 * (trigger math + misfire policy); no I/O. PENDING rows for fires (due at their fire time, or
 * now for catch-up fires), SKIPPED rows for fire times skipped by policy SKIP, so that the
 * history shows them and their fire keys are taken.
 */
export function planTask(
  task: DueTaskRow,
  calendar: ExclusionCalendar | null,
  now: number,
  lookAheadMs: number,
  taken?: ReadonlySet<number>,
  maxRuns = MAX_RUNS_PER_TASK_PER_PASS,
): TaskPlan {
  const schedule: Schedule = {
    trigger: triggerFromColumns(task),
    startAt: task.startAt,
    endAt: task.endAt,
    maxFires: task.maxFires,
    fireCount: task.fireCount,
    calendar,
    createdAt: task.createdAt,
  };
  const plan = planFires({
    schedule,
    misfirePolicy: task.misfirePolicy,
    misfireThresholdMs: task.misfireThresholdMs,
    nextFireAt: task.nextFireAt,
    now,
    lookAheadMs,
    maxRuns,
    taken,
  });
  const base = { tenantId: task.tenantId, taskId: task.id, engineGroup: task.engineGroup, priority: task.priority, paramsJson: task.paramsJson };
  const runs: PlannedRunRow[] = [
    ...plan.fires.map((f) => ({
      ...base,
      state: 'PENDING' as const,
      fireKey: scheduledFireKey(f.scheduledAt),
      scheduledAt: f.scheduledAt,
      dueAt: f.dueAt,
      finishedAt: null,
      error: null,
    })),
    ...plan.skipped.map((t) => ({
      ...base,
      state: 'SKIPPED' as const,
      fireKey: scheduledFireKey(t),
      scheduledAt: t,
      dueAt: t,
      finishedAt: now,
      error: SKIPPED_MISFIRE_REASON,
    })),
  ];
  return { runs, advance: { taskId: task.id, nextFireAt: plan.nextFireAt, firesConsumed: plan.firesConsumed } };
}
