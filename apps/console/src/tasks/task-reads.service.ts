import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { findNextPlannedFires, findTask, listTasks, TaskEntity, taskEntityToDefinition } from '@baton/persistence';
import { badRequest, notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import { DEFAULT_PAGE_SIZE, Page } from '../common/cursor';
import type { TaskQuery, TaskView } from './dto/task.dto';
import { fileTask } from './file-task';
import { hasDrifted } from './managed-hash';
import { calendarNamesOf } from './task-calendars';

/**
 * A task as the API shows it. Its nextFireAt is the next instant it fires that has not come: the
 * earliest of its fires planned ahead and not ended (`plannedFire`, findNextPlannedFires) and the
 * planner's cursor (tasks.next_fire_at, the first fire not planned yet, which the engines read) —
 * the cursor alone runs up to BATON_LOOK_AHEAD_MS ahead of a frequent task's next fire.
 */
export function taskView(row: TaskEntity, calendarName: string | null, plannedFire: number | null): TaskView {
  const definition = taskEntityToDefinition(row, calendarName);
  return {
    id: row.id,
    ...fileTask(definition),
    importedFrom: definition.importedFrom,
    fireCount: row.fireCount,
    nextFireAt: plannedFire === null || (row.nextFireAt !== null && row.nextFireAt < plannedFire) ? row.nextFireAt : plannedFire,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    version: row.version,
    managed: row.managedHash !== null,
    drifted: hasDrifted(definition, row.managedHash),
  };
}

function encodeNameCursor(name: string): string {
  return Buffer.from(JSON.stringify({ after: name }), 'utf8').toString('base64url');
}

function decodeNameCursor(cursor: string): string {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { after?: unknown };
    if (typeof value?.after === 'string') return value.after;
  } catch {
    // fall through
  }
  throw badRequest([{ field: 'cursor', reason: 'not a cursor returned by this API' }]);
}

/** Tasks as the API shows them: the tenant's list by name, and one task. */
@Injectable()
export class TaskReadsService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async list(tenantId: string, query: TaskQuery): Promise<Page<TaskView>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const rows = await listTasks(this.dataSource.manager, tenantId, {
      search: query.search,
      group: query.group,
      paused: query.paused,
      afterName: query.cursor === undefined ? undefined : decodeNameCursor(query.cursor),
      limit: limit + 1,
    });
    const more = rows.length > limit;
    const page = more ? rows.slice(0, limit) : rows;
    const calendars = await calendarNamesOf(this.dataSource.manager, tenantId, page);
    const planned = await findNextPlannedFires(this.dataSource.manager, { taskIds: page.map((r) => r.id), now: this.clock.now() });
    return {
      items: page.map((row) => taskView(row, row.calendarId === null ? null : (calendars.get(row.calendarId) ?? null), planned.get(row.id) ?? null)),
      nextCursor: more ? encodeNameCursor(page[page.length - 1].name) : null,
    };
  }

  async get(tenantId: string, id: number, em: EntityManager = this.dataSource.manager): Promise<TaskView> {
    const row = await findTask(em, tenantId, id);
    if (!row) throw notFound('Task', id);
    const calendars = await calendarNamesOf(em, tenantId, [row]);
    const planned = await findNextPlannedFires(em, { taskIds: [row.id], now: this.clock.now() });
    return taskView(row, row.calendarId === null ? null : (calendars.get(row.calendarId) ?? null), planned.get(row.id) ?? null);
  }
}
