import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { validateTask, withTaskDefaults, type FieldError, type TaskDefinition } from '@baton/domain';
import { findTask, findTasksByName, findTenant, insertTasks, inTransaction, isUniqueViolation, TaskEntity } from '@baton/persistence';
import { auditChange } from '../audit';
import { conflict, notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import { canonical } from './canonical-definition';
import type { TaskBodyDto, TaskView } from './dto/task.dto';
import { keepTaskVersions } from './keep-task-versions';
import { newTaskRow } from './new-task-row';
import { ParamsCheck } from './params-check';
import { calendarByName, definitionOf, resolveCalendar } from './task-calendars';
import { inputOf, invalid } from './task-input';
import { assertNameFree, refusingTakenName } from './task-names';
import { TaskReadsService, taskView } from './task-reads.service';

/** New tasks: one, a batch, or a copy of another. */
@Injectable()
export class TaskCreationService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly params: ParamsCheck,
    private readonly reads: TaskReadsService,
  ) {}

  async create(tenantId: string, dto: TaskBodyDto): Promise<TaskView> {
    const input = inputOf(dto);
    const errors = validateTask(input);
    if (errors.length) invalid(errors);
    const definition = canonical(withTaskDefaults(input, tenantId));
    await this.params.assertFit(this.dataSource.manager, tenantId, [definition]);
    return refusingTakenName(definition.name, () =>
      inTransaction(this.dataSource, async (em) => {
        const tenant = await findTenant(em, tenantId);
        if (!tenant) throw notFound('Tenant', tenantId);
        const calendar = await resolveCalendar(em, tenantId, definition.calendarName);
        await assertNameFree(em, tenantId, definition.name, null);
        const row = newTaskRow(definition, tenant.engineGroup, calendar, this.clock.now());
        if ('field' in row) invalid([row]);
        await insertTasks(em, [row]);
        const created = await this.reads.get(tenantId, row.id, em);
        await keepTaskVersions(em, [{ tenantId, taskId: row.id, version: row.version, definition }], this.clock.now());
        await auditChange(em, { tenantId, objectType: 'task', objectId: created.id, after: created });
        return created;
      }),
    );
  }

  /**
   * POST /tasks/batch: each task checked as create() checks it, all created in one transaction
   * or none; every error names its item (`tasks[3].trigger.expression`), all of them at once.
   * Rows go in with multi-row INSERTs: creating 4,000 tasks one POST at a time took 14–20 s.
   */
  async createMany(tenantId: string, dtos: readonly TaskBodyDto[]): Promise<TaskView[]> {
    const errors: FieldError[] = [];
    const definitions: TaskDefinition[] = [];
    const indexOfName = new Map<string, number>();
    dtos.forEach((dto, i) => {
      const input = inputOf(dto);
      const problems = validateTask(input);
      if (problems.length) return void errors.push(...problems.map((e) => ({ ...e, field: `tasks[${i}].${e.field}` })));
      const definition = canonical(withTaskDefaults(input, tenantId));
      const first = indexOfName.get(definition.name);
      if (first === undefined) indexOfName.set(definition.name, i);
      else errors.push({ field: `tasks[${i}].name`, reason: `"${definition.name}" is also the name of tasks[${first}]` });
      definitions[i] = definition;
    });
    if (errors.length) invalid(errors);
    await this.params.assertFit(this.dataSource.manager, tenantId, definitions, (i) => `tasks[${i}].`);
    const names = [...indexOfName.keys()];
    return this.writingMany(() =>
        inTransaction(this.dataSource, async (em) => {
          const tenant = await findTenant(em, tenantId);
          if (!tenant) throw notFound('Tenant', tenantId);
          const taken = await findTasksByName(em, tenantId, names);
          if (taken.length) {
            const named = taken.map((t) => ({ field: `tasks[${indexOfName.get(t.name)}].name`, reason: `a task named "${t.name}" already exists` }));
            throw conflict(`${taken.length} of the tasks' names are taken; nothing was created`, named);
          }
          const calendars = new Map<string, Awaited<ReturnType<typeof calendarByName>>>();
          for (const name of new Set(definitions.map((d) => d.calendarName).filter((n): n is string => n !== null))) calendars.set(name, await calendarByName(em, tenantId, name));
          const now = this.clock.now();
          const rows = definitions.map((d, i) => {
            const calendar = d.calendarName === null ? null : calendars.get(d.calendarName)!;
            if (d.calendarName !== null && !calendar) return { field: `tasks[${i}].calendarName`, reason: `no calendar named "${d.calendarName}"` };
            const row = newTaskRow(d, tenant.engineGroup, calendar, now);
            return 'field' in row ? { ...row, field: `tasks[${i}].${row.field}` } : row;
          });
          const refused = rows.filter((r): r is FieldError => 'field' in r);
          if (refused.length) invalid(refused);
          await insertTasks(em, rows as TaskEntity[]);
          // Read back (ids and all): a multi-row INSERT's ids need not be consecutive.
          const saved = new Map((await findTasksByName(em, tenantId, names)).map((r) => [r.name, r]));
          // New tasks: no fire of theirs is planned yet.
          const views = definitions.map((d) => taskView(saved.get(d.name)!, d.calendarName, null));
          await keepTaskVersions(em, definitions.map((d) => ({ tenantId, taskId: saved.get(d.name)!.id, version: 1, definition: d })), this.clock.now());
          await auditChange(em, { tenantId, objectType: 'task', objectId: null, after: { tasks: views.map((v) => ({ id: v.id, name: v.name })) } });
          return views;
        }),
    );
  }

  /**
   * A new task with another task's whole definition under a new name (its params, trigger,
   * calendar, retry, alarms…), checked and saved as create() saves one; its fire count starts at
   * zero, and it has no importedFrom. `paused` (default: the source's) lets a copy be reviewed before it fires.
   */
  async copy(tenantId: string, id: number, name: unknown, paused: unknown): Promise<TaskView> {
    const row = await findTask(this.dataSource.manager, tenantId, id);
    if (!row) throw notFound('Task', id);
    const { tenantId: _owner, ...definition } = await definitionOf(this.dataSource.manager, row);
    // A copy is another task, not the item the source was imported from.
    return this.create(tenantId, { ...definition, name, paused: paused === undefined ? definition.paused : paused, importedFrom: null } as TaskBodyDto);
  }

  /** createMany's refusingTakenName: a name taken by a concurrent writer after the check is a 409 too (nothing was created). */
  private async writingMany<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict('A name of this batch was taken meanwhile; nothing was created', [{ field: 'tasks', reason: 'a name was taken by another request meanwhile' }]);
      throw error;
    }
  }
}
