import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { canonicalTimeZone, firstFireTime, validateCalendar, type ExclusionCalendar } from '@baton/domain';
import {
  bumpRenamedCalendarTask,
  calendarNameTaken,
  CalendarEntity,
  countCalendarTasks,
  deleteCalendar,
  findCalendar,
  findCalendarTasks,
  insertCalendar,
  inTransaction,
  isUniqueViolation,
  listCalendars,
  moveTaskNextFire,
  taskEntityToDefinition,
  updateCalendar,
} from '@baton/persistence';
import { badRequest, conflict, notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import { auditChange } from '../audit';
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
        Object.assign(row, value);
        await this.refreshTasks(em, tenantId, row);
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
   * Recomputes the stored next fire time of the tasks using a changed calendar: the first fire
   * time from the stored one (if already due) or from now. FIXED_DELAY tasks are left to the
   * engine, which places their next fire when a run ends.
   */
  async refreshTasks(em: EntityManager, tenantId: string, calendar: CalendarEntity): Promise<void> {
    const definition: ExclusionCalendar = { name: calendar.name, timeZone: calendar.timeZone, dates: calendar.dates };
    const tasks = await findCalendarTasks(em, tenantId, calendar.id);
    const now = this.clock.now();
    for (const task of tasks) {
      if (task.nextFireAt === null || task.triggerKind === 'FIXED_DELAY' || task.triggerKind === 'MANUAL') continue;
      const schedule = scheduleOf(taskEntityToDefinition(task, calendar.name), task, definition);
      const next = firstFireTime(schedule, Math.min(task.nextFireAt, now));
      if (next === task.nextFireAt) continue;
      await moveTaskNextFire(em, { id: task.id, readVersion: task.version, nextFireAt: next, now });
    }
  }
}
