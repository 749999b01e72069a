import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { preparedFiresWithdrawnAfter, validateTask, withTaskDefaults, type ExclusionCalendar, type FieldError, type FireCursor, type TaskDefinition, type TaskInput } from '@baton/domain';
import { findTask, hasScheduledRunUnderWay, instantsGivenBack, inTransaction, lockTask, taskDefinitionToColumns, TaskEntity, updateTask, WITHDRAWN_BY } from '@baton/persistence';
import { auditChange } from '../audit';
import { conflict, notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import { RunChangesService } from '../run-changes/run-changes.service';
import { canonical } from './canonical-definition';
import type { PatchTaskDto, TaskView, UpdateTaskDto } from './dto/task.dto';
import { keepTaskVersions } from './keep-task-versions';
import { ParamsCheck } from './params-check';
import { savedFireCursor } from './schedule';
import { definitionOf, resolveCalendar } from './task-calendars';
import { inputOf, invalid, isPlainObject } from './task-input';
import { assertNameFree, refusingTakenName } from './task-names';
import { TaskReadsService } from './task-reads.service';

/** Changes to a task's definition: a PUT, a PATCH, a version restored; and what a change does to the task's schedule. */
@Injectable()
export class TaskEditsService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly params: ParamsCheck,
    private readonly reads: TaskReadsService,
    private readonly runChanges: RunChangesService,
  ) {}

  /** PUT: the body is the whole task (omitted fields take their defaults). */
  replace(tenantId: string, id: number, dto: UpdateTaskDto): Promise<TaskView> {
    const input = inputOf(dto);
    const errors = validateTask(input);
    if (errors.length) invalid(errors);
    const definition = canonical(withTaskDefaults(input, tenantId));
    return this.update(tenantId, id, dto.version, () => definition);
  }

  /** PATCH: the body's fields replace the stored ones; `retry` and `alarms` may be given in part. */
  patch(tenantId: string, id: number, dto: PatchTaskDto): Promise<TaskView> {
    const patch = inputOf(dto) as Record<string, unknown>;
    return this.update(tenantId, id, dto.version, (current) => {
      const merged: Record<string, unknown> = { ...current, ...patch };
      delete merged.tenantId;
      if (isPlainObject(patch.retry)) merged.retry = { ...current.retry, ...patch.retry };
      if (isPlainObject(patch.alarms)) merged.alarms = { ...current.alarms, ...patch.alarms };
      const errors = validateTask(merged);
      if (errors.length) invalid(errors);
      return canonical(withTaskDefaults(merged as TaskInput, tenantId));
    });
  }

  /**
   * Restores a version: the task takes the definition that version saved, as a PUT of it would
   * (same checks: its calendar must still exist, its name be free), which makes a new version.
   */
  restore(tenantId: string, id: number, definition: TaskDefinition): Promise<TaskView> {
    return this.update(tenantId, id, undefined, () => ({ ...definition, tenantId }));
  }

  private update(
    tenantId: string,
    id: number,
    expectedVersion: number | undefined,
    next: (current: TaskDefinition) => TaskDefinition,
  ): Promise<TaskView> {
    let name = '';
    return refusingTakenName(
      () => name,
      async () => {
        const checked = await this.paramsCheckedBefore(tenantId, id, expectedVersion, next);
        return inTransaction(this.dataSource, async (em) => {
          const row = await lockTask(em, tenantId, id);
          if (!row) throw notFound('Task', id);
          if (expectedVersion !== undefined && expectedVersion !== row.version) {
            throw conflict(`Task ${id} was changed since version ${expectedVersion} (now ${row.version}); reload it`, [
              { field: 'version', reason: `is ${expectedVersion}, the task is at version ${row.version}` },
            ]);
          }
          const before = await this.reads.get(tenantId, id, em);
          const current = await definitionOf(em, row);
          const definition = next(current);
          name = definition.name;
          // Checked already, unless the task changed since (its params, app or handler come from it when not given).
          if (paramsKey(definition) !== checked) await this.params.assertFit(em, tenantId, [definition]);
          const calendar = await resolveCalendar(em, tenantId, definition.calendarName);
          if (definition.name !== row.name) await assertNameFree(em, tenantId, definition.name, id);
          const cursor = await this.reschedule(em, row, current, definition, calendar?.definition ?? null);
          if ('field' in cursor) invalid([cursor]);
          const saved = await updateTask(em, { tenantId, id, readVersion: row.version, columns: taskDefinitionToColumns(definition, calendar?.id ?? null), ...cursor, now: this.clock.now() });
          if (!saved) {
            throw conflict(`Task ${id} was changed concurrently; reload it and try again`, [
              { field: 'version', reason: 'the task changed while it was being saved' },
            ]);
          }
          const after = await this.reads.get(tenantId, id, em);
          await keepTaskVersions(em, [{ tenantId, taskId: id, version: row.version + 1, definition }], this.clock.now());
          await auditChange(em, { tenantId, objectType: 'task', objectId: id, before, after });
          return after;
        });
      },
    );
  }

  /**
   * What saving `after` over a stored task does to its schedule, inside the save's transaction
   * (`row` read under lockTask on MySQL, or the caller's snapshot with its version guard): the
   * prepared fires the domain says the save outdates are withdrawn (preparedFiresWithdrawnAfter —
   * every one not come yet for a pause, those more than a second ahead for an edit of a field a
   * fire carries; the engines abort the ones they sent once it commits), and the planner state to
   * store, rewound so the planner plans their instants again as the task now says — those of the
   * fires no executor can have (instantsGivenBack); a sent one's instant is given back by the
   * engines once its executor says it never started it (apps/engine/src/runs/withdrawn-fires.ts). A schedule
   * that could never fire is the FieldError naming why (the caller refuses the save, and the
   * rollback keeps the fires).
   */
  async reschedule(em: EntityManager, row: TaskEntity, before: TaskDefinition, after: TaskDefinition, calendar: ExclusionCalendar | null): Promise<FireCursor | FieldError> {
    const now = this.clock.now();
    const cutoff = preparedFiresWithdrawnAfter(before, after, now);
    const withdrawn = cutoff === null ? [] : await this.runChanges.withdrawFires(em, row.tenantId, [row.id], cutoff, after.paused ? WITHDRAWN_BY.pause : WITHDRAWN_BY.edit);
    const chainUnderWay = before.trigger.kind === 'FIXED_DELAY' && after.trigger.kind === 'FIXED_DELAY' && (await hasScheduledRunUnderWay(em, { tenantId: row.tenantId, taskId: row.id }));
    return savedFireCursor(row, before, after, calendar, now, instantsGivenBack(withdrawn), chainUnderWay);
  }

  /**
   * update()'s params check, before its transaction (see ParamsCheck.assertFit): the task as it is
   * now, changed as the request says, checked; the key of what was checked (paramsKey), for the
   * transaction to see whether the task changed meanwhile. Nothing is checked where the
   * transaction answers first: a task that does not exist, or is not at the expected version.
   */
  private async paramsCheckedBefore(tenantId: string, id: number, expectedVersion: number | undefined, next: (current: TaskDefinition) => TaskDefinition): Promise<string | null> {
    const em = this.dataSource.manager;
    const row = await findTask(em, tenantId, id);
    if (!row || (expectedVersion !== undefined && expectedVersion !== row.version)) return null;
    const definition = next(await definitionOf(em, row));
    await this.params.assertFit(em, tenantId, [definition]);
    return paramsKey(definition);
  }
}

/** What a params check depends on in a task: the same key, the same verdict (for a given set of live executors). */
function paramsKey(definition: TaskDefinition): string {
  return JSON.stringify([definition.executorApp, definition.handler, definition.params]);
}
