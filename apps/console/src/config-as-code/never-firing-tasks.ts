import type { ExclusionCalendar, FieldError } from '@baton/domain';
import { taskEntityToDefinition } from '@baton/persistence';
import { newTaskRow } from '../tasks/new-task-row';
import { savedFireCursor } from '../tasks/schedule';
import { definitionOf, type FileTask } from '../tasks/file-task';
import type { ConfigFile } from './config-file';
import type { Snapshot } from './config-snapshot';

/**
 * The file's tasks that apply would refuse because they could never fire (a one-shot whose time
 * has passed, an end time passed, maxFires reached, a calendar excluding every fire), named as
 * apply names them (`tasks[i].trigger.at`): a plan refuses them too. A plan answered "1 to
 * create" for an export whose one-shot task had fired, and its apply then refused it, so a CI
 * promoting staging's file to production passed its plan and failed its apply.
 *
 * A new task is checked as apply makes its row (newTaskRow); a changed one as apply reschedules
 * it (savedFireCursor: a task whose schedule did not change is not checked, so a fired one-shot
 * the tenant already has stays fine), with no prepared fire withdrawn and no FIXED_DELAY chain
 * under way, which only apply reads. Only tasks that can end are looked at: a cron or a rate with
 * no end, calendar or maxFires always has a next fire (parseCron refuses a cron matching no date).
 */
export function neverFiringTasks(tenantId: string, snapshot: Snapshot, desired: ConfigFile, now: number): FieldError[] {
  const calendars = new Map<string, ExclusionCalendar>([...snapshot.calendars].map(([name, row]) => [name, { name, timeZone: row.timeZone, dates: row.dates }]));
  for (const calendar of desired.calendars) calendars.set(calendar.name, calendar);
  const storedCalendarName = new Map([...snapshot.calendars].map(([name, row]) => [row.id, name]));
  const errors: FieldError[] = [];
  desired.tasks.forEach((task, i) => {
    if (!mayEnd(task)) return;
    const definition = definitionOf(task, tenantId);
    const calendar = task.calendarName === null ? null : (calendars.get(task.calendarName) ?? null);
    const stored = snapshot.tasks.get(task.name);
    const checked = stored
      ? savedFireCursor(stored, taskEntityToDefinition(stored, stored.calendarId === null ? null : (storedCalendarName.get(stored.calendarId) ?? null)), definition, calendar, now, [], false)
      : newTaskRow(definition, '', calendar === null ? null : { id: 0, definition: calendar }, now);
    if ('field' in checked) errors.push({ field: `tasks[${i}].${checked.field}`, reason: checked.reason });
  });
  return errors;
}

function mayEnd(task: FileTask): boolean {
  return task.trigger.kind === 'ONCE' || task.endAt != null || task.maxFires != null || task.calendarName != null;
}
