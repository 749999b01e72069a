import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { diffFields, nextFireTimes, redact, redactChange, type ExclusionCalendar, type TaskDefinition } from '@baton/domain';
import { findCalendar, findCalendarsByName, findTask, listTaskVersions, taskEntityToDefinition } from '@baton/persistence';
import { notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import type { TaskVersionView } from './dto/task-version.dto';
import { scheduleOf } from './schedule';

/** Versions listed on the task page: the newest this many. */
export const TASK_VERSIONS_LISTED = 50;

/** Fire times shown for each version. */
const FIRE_TIMES_SHOWN = 5;

/**
 * A task's versions (kept by keepTaskVersions in each change's transaction): each with its diff to
 * the version before and the fire times it would give now (the domain's trigger math). Secret-named
 * values are shown redacted, as in the audit log; a restore takes the stored definition.
 */
@Injectable()
export class TaskVersionsService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async list(tenantId: string, taskId: number): Promise<TaskVersionView[]> {
    const em = this.dataSource.manager;
    const task = await findTask(em, tenantId, taskId);
    if (!task) throw notFound('Task', taskId);
    // One more than listed, so the oldest listed has its diff too.
    const rows = await listTaskVersions(em, { tenantId, taskId, limit: TASK_VERSIONS_LISTED + 1 });
    const calendars = await this.calendars(tenantId, rows.map((r) => r.definition.calendarName));
    const currentCalendar = task.calendarId === null ? null : await findCalendar(em, tenantId, task.calendarId);
    const currentDefinition = taskEntityToDefinition(task, currentCalendar?.name ?? null);
    const now = this.clock.now();
    return rows.slice(0, TASK_VERSIONS_LISTED).map((row, i) => {
      const previous = rows[i + 1];
      // As a save would count: the same trigger keeps the task's fire count, a new one starts from zero.
      const sameTrigger = diffFields(row.definition.trigger, currentDefinition.trigger).length === 0;
      const schedule = scheduleOf(row.definition, { fireCount: sameTrigger ? task.fireCount : 0, createdAt: task.createdAt }, calendars.get(row.definition.calendarName ?? '') ?? null);
      return {
        version: row.version,
        at: row.at,
        actor: row.actorName,
        // Secret-named params as the audit log shows them (redact): a version outlives the secret's rotation.
        definition: redact(row.definition) as Record<string, unknown>,
        changes: previous ? diffFields(comparable(previous.definition), comparable(row.definition)).map(redactChange) : [],
        nextFireTimes: row.definition.trigger.kind === 'MANUAL' || row.definition.trigger.kind === 'EVENT' ? [] : nextFireTimes(schedule, now, FIRE_TIMES_SHOWN),
        current: diffFields(comparable(row.definition), comparable(currentDefinition)).length === 0,
      };
    });
  }

  /** The definition a version saved (404 for another tenant's task or an unknown version). */
  async definition(tenantId: string, taskId: number, version: number): Promise<TaskDefinition> {
    const [row] = await listTaskVersions(this.dataSource.manager, { tenantId, taskId, version, limit: 1 });
    if (!row) throw notFound(`Version ${version} of task`, taskId);
    return row.definition;
  }

  private async calendars(tenantId: string, names: ReadonlyArray<string | null>): Promise<Map<string, ExclusionCalendar>> {
    const rows = await findCalendarsByName(this.dataSource.manager, tenantId, [...new Set(names.filter((n): n is string => n !== null))]);
    return new Map(rows.map((c) => [c.name, { name: c.name, timeZone: c.timeZone, dates: c.dates }]));
  }
}

/** A definition as versions are compared: the tenant is not the user's to change. */
function comparable(definition: TaskDefinition): Omit<TaskDefinition, 'tenantId'> {
  const { tenantId: _tenant, ...rest } = definition;
  void _tenant;
  return rest;
}
