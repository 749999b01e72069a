import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { canonicalTimeZone, EDIT_REACHES_FIRES_AFTER_MS, firstFireTime, rewindForWithdrawn, validateCalendar, type ExclusionCalendar } from '@baton/domain';
import {
  bumpRenamedCalendarTask,
  calendarNameTaken,
  CalendarEntity,
  countCalendarTasks,
  deleteCalendar,
  findCalendar,
  findCalendarTasks,
  insertCalendar,
  instantsGivenBack,
  inTransaction,
  isUniqueViolation,
  listCalendars,
  lockTask,
  setFireCursors,
  taskEntityToDefinition,
  updateCalendar,
  WITHDRAWN_BY,
} from '@baton/persistence';
import { badRequest, conflict, notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import { auditChange } from '../audit';
import { RunChangesService } from '../run-changes/run-changes.service';
import { scheduleOf } from '../tasks/schedule';
import { keepTaskVersions, type ChangedTaskVersion } from '../tasks/keep-task-versions';
import type { CalendarBodyDto, CalendarView } from './dto/calendar.dto';

function calendarView(row: CalendarEntity, taskCount?: number): CalendarView {
  return {
    id: row.id,
    name: row.name,
    timeZone: row.timeZone,
    dates: row.dates,
    createdAt: row.createdAt,
    ...(taskCount === undefined ? {} : { taskCount }),
  };
}

function inputOf(dto: CalendarBodyDto): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(dto)) if (value !== undefined) input[key] = value;
  return input;
}

function duplicate(name: string) {
  return conflict(`A calendar named "${name}" already exists`, [{ field: 'name', reason: `a calendar named "${name}" already exists` }]);
}

@Injectable()
export class CalendarsService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly runChanges: RunChangesService,
  ) {}

  async list(tenantId: string): Promise<CalendarView[]> {
    const rows = await listCalendars(this.dataSource.manager, tenantId);
    return rows.map((row) => calendarView(row));
  }

  async get(tenantId: string, id: number): Promise<CalendarView> {
    const row = await findCalendar(this.dataSource.manager, tenantId, id);
    if (!row) throw notFound('Calendar', id);
    const taskCount = await countCalendarTasks(this.dataSource.manager, tenantId, id);
    return calendarView(row, taskCount);
  }

  private validated(input: Record<string, unknown>): { name: string; timeZone: string; dates: string[] } {
    const errors = validateCalendar(input).map((e) => (e.field === '' ? { field: 'body', reason: e.reason } : e));
    for (const key of Object.keys(input)) {
      if (!['name', 'timeZone', 'dates'].includes(key)) errors.push({ field: key, reason: 'unknown field (not allowed)' });
    }
    if (errors.length) throw badRequest(errors);
    const dates = [...new Set(input.dates as string[])].sort();
    return { name: input.name as string, timeZone: canonicalTimeZone(input.timeZone as string) as string, dates };
  }

  async create(tenantId: string, dto: CalendarBodyDto): Promise<CalendarView> {
    const value = this.validated(inputOf(dto));
    try {
      return await inTransaction(this.dataSource, async (em) => {
        if (await calendarNameTaken(em, tenantId, value.name)) throw duplicate(value.name);
        const row = Object.assign(new CalendarEntity(), { tenantId, ...value, createdAt: this.clock.now() });
        await insertCalendar(em, row);
        await auditChange(em, { tenantId, objectType: 'calendar', objectId: row.id, after: calendarView(row) });
        return calendarView(row, 0);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicate(value.name);
      throw error;
    }
  }

  /** PUT (whole calendar) or PATCH (`partial`): the next fire times of the tasks using it follow. */
  async update(tenantId: string, id: number, dto: CalendarBodyDto, partial: boolean): Promise<CalendarView> {
    let name = '';
    try {
      return await inTransaction(this.dataSource, async (em) => {
        const row = await findCalendar(em, tenantId, id);
        if (!row) throw notFound('Calendar', id);
        const before = calendarView(row);
        const input = partial ? { name: row.name, timeZone: row.timeZone, dates: row.dates, ...inputOf(dto) } : inputOf(dto);
        const value = this.validated(input);
        name = value.name;
        if (value.name !== row.name && (await calendarNameTaken(em, tenantId, value.name, id))) {
          throw duplicate(value.name);
        }
        await updateCalendar(em, tenantId, id, value);
        const renamed = value.name !== row.name;
        // A rename alone moves no fire time.
        const moved = value.timeZone !== row.timeZone || JSON.stringify(value.dates) !== JSON.stringify(row.dates);
        Object.assign(row, value);
        if (moved) await this.refreshTasks(em, tenantId, row);
        if (renamed) await this.keepRenamedVersions(em, tenantId, row);
        const taskCount = await countCalendarTasks(em, tenantId, id);
        await auditChange(em, { tenantId, objectType: 'calendar', objectId: id, before, after: calendarView(row) });
        return calendarView(row, taskCount);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicate(name);
      throw error;
    }
  }

  /** A calendar still used by tasks is not deleted (409 naming them). */
  async delete(tenantId: string, id: number): Promise<void> {
    await inTransaction(this.dataSource, async (em) => {
      const row = await findCalendar(em, tenantId, id);
      if (!row) throw notFound('Calendar', id);
      const users = await findCalendarTasks(em, tenantId, id, 20);
      if (users.length) {
        throw conflict(`Calendar "${row.name}" is used by tasks ${users.map((t) => t.name).join(', ')}`, [
          { field: 'id', reason: 'calendar in use by tasks' },
        ]);
      }
      await deleteCalendar(em, tenantId, id);
      await auditChange(em, { tenantId, objectType: 'calendar', objectId: id, before: calendarView(row) });
    });
  }

  /**
   * A rename changes the definition of every task naming the calendar (`calendarName`): each
   * moves to its next version, kept with the new name, so its History tab lists every number and
   * marks the current one.
   */
  private async keepRenamedVersions(em: EntityManager, tenantId: string, calendar: CalendarEntity): Promise<void> {
    const now = this.clock.now();
    const versions: ChangedTaskVersion[] = [];
    for (const task of await findCalendarTasks(em, tenantId, calendar.id)) {
      if (!(await bumpRenamedCalendarTask(em, { id: task.id, tenantId, readVersion: task.version, now }))) continue;
      versions.push({ tenantId, taskId: task.id, version: task.version + 1, definition: taskEntityToDefinition(task, calendar.name) });
    }
    await keepTaskVersions(em, versions, now);
  }

  /**
   * The tasks using a calendar whose dates changed follow them, as an edit of their own calendar
   * does (TaskEditsService.reschedule): each task's prepared fires more than
   * EDIT_REACHES_FIRES_AFTER_MS ahead are withdrawn — planned, claimed or sent ahead, one on a date
   * now excluded would still run — and its next fire time, rewound to give their instants back,
   * becomes the first fire time from it (if already due: a paused task's missed time stays a
   * misfire) or from now. A FIXED_DELAY task keeps the rewound time: the planner moves it along
   * the delay grid past excluded dates (resumeFireTime), and a run's end places the next one.
   * Each task is read under lock, so the planner does not move it meanwhile.
   */
  async refreshTasks(em: EntityManager, tenantId: string, calendar: CalendarEntity): Promise<void> {
    const definition: ExclusionCalendar = { name: calendar.name, timeZone: calendar.timeZone, dates: calendar.dates };
    const now = this.clock.now();
    for (const { id } of await findCalendarTasks(em, tenantId, calendar.id)) {
      const task = await lockTask(em, tenantId, id);
      if (!task || task.triggerKind === 'MANUAL' || task.triggerKind === 'EVENT') continue;
      const withdrawn = await this.runChanges.withdrawFires(em, tenantId, [id], now + EDIT_REACHES_FIRES_AFTER_MS, WITHDRAWN_BY.calendar);
      const cursor = rewindForWithdrawn(task, instantsGivenBack(withdrawn));
      const schedule = scheduleOf(taskEntityToDefinition(task, calendar.name), { fireCount: cursor.fireCount, createdAt: task.createdAt }, definition);
      const next = cursor.nextFireAt === null || task.triggerKind === 'FIXED_DELAY' ? cursor.nextFireAt : firstFireTime(schedule, Math.min(cursor.nextFireAt, now));
      if (next === task.nextFireAt && cursor.fireCount === task.fireCount) continue;
      await setFireCursors(em, { tenantId, cursors: [{ taskId: id, fireCount: cursor.fireCount, nextFireAt: next }] });
    }
  }
}
