import type { ExclusionCalendar, FieldError, TaskDefinition } from '@baton/domain';
import { taskDefinitionToColumns, TaskEntity } from '@baton/persistence';
import { neverFiresProblem, nextFireAtFor, scheduleOf } from './schedule';

/** A new task's row (its first fire computed from its trigger), or why it can never fire. */
export function newTaskRow(
  definition: TaskDefinition,
  engineGroup: string,
  calendar: { id: number; definition: ExclusionCalendar } | null,
  now: number,
): TaskEntity | FieldError {
  const schedule = scheduleOf(definition, { fireCount: 0, createdAt: now }, calendar?.definition ?? null);
  const nextFireAt = nextFireAtFor(schedule, now, { nextFireAt: null, kindBefore: null, chainUnderWay: false });
  const never = neverFiresProblem(schedule, nextFireAt, now);
  if (never) return never;
  return Object.assign(new TaskEntity(), {
    ...taskDefinitionToColumns(definition, calendar?.id ?? null),
    engineGroup,
    fireCount: 0,
    nextFireAt,
    createdAt: now,
    updatedAt: now,
    version: 1,
  });
}
