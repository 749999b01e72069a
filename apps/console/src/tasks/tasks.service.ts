import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import {
  BACKFILL_SLICE,
  BACKFILL_TOO_MANY,
  backfillFires,
  backfillRange,
  MAX_BACKFILL_FIRES,
  paramsProblem,
  preparedFiresWithdrawnAfter,
  rewindForWithdrawn,
  validateTask,
  withTaskDefaults,
  type ExclusionCalendar,
  type FieldError,
  type FireCursor,
  type TaskDefinition,
  type TaskInput,
} from '@baton/domain';
import {
  afterCommit,
  calendarNames,
  cancelBackfillRuns,
  cancelTaskRuns,
  countExistingFires,
  deleteEdges,
  deleteTask,
  findCalendar,
  findCalendarByName,
  findTask,
  findTaskEdges,
  findTaskIdByName,
  findTasksByName,
  findTenant,
  insertManualRun,
  insertPlannedRuns,
  insertTasks,
  inTransaction,
  isUniqueViolation,
  listTasks,
  lockGroupTasks,
  lockTask,
  lockTaskForBackfill,
  markBackfillsCancelled,
  RunEntity,
  setFireCursors,
  setTasksPaused,
  withdrawPreparedFires,
  WITHDRAWN_BY,
  type PlannedRunRow,
  taskDefinitionToColumns,
  TaskEntity,
  taskEntityToDefinition,
  updateTask,
} from '@baton/persistence';
import { auditChange } from '../audit';
import { badRequest, conflict, notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import { nextTurn } from '../common/next-turn';
import { TenantHeavyWork } from '../common/tenant-heavy-work';
import { DEFAULT_PAGE_SIZE, Page } from '../common/cursor';
import { runDetailView } from '../runs/runs.service';
import type { RunDetailView } from '../runs/dto/run.dto';
import type { BackfillDto, BackfillView, GroupPauseView, PatchTaskDto, TaskBodyDto, TaskQuery, TaskView, UpdateTaskDto } from './dto/task.dto';
import { DEFAULT_BACKFILL_RATE } from './dto/task.dto';
import { neverFiresProblem, nextFireAtFor, savedFireCursor, scheduleOf } from './schedule';
import { ParamsCheck, type ParamsOf } from './params-check';
import type { RunWakeups } from '@baton/messaging';
import { abortAtExecutorsAfterCommit } from '../wakeups/cancel-notices';
import { RUN_WAKEUPS } from '../wakeups/run-wakeups';
import { wakeupsGone } from '../wakeups/wakeups-gone';
import { canonical } from './canonical-definition';
import { fileTask } from './file-task';
import { hasDrifted } from './managed-hash';
import { keepTaskVersions, type ChangedTaskVersion } from './keep-task-versions';

export function taskView(row: TaskEntity, calendarName: string | null): TaskView {
  const definition = taskEntityToDefinition(row, calendarName);
  return {
    id: row.id,
    ...fileTask(definition),
    fireCount: row.fireCount,
    nextFireAt: row.nextFireAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    version: row.version,
    managed: row.managedHash !== null,
    drifted: hasDrifted(definition, row.managedHash),
  };
}

/** The fields a client sent (the DTO instance also carries undefined for the absent ones). */
function inputOf(dto: TaskBodyDto | PatchTaskDto): TaskInput {
  const input: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(dto)) if (value !== undefined && key !== 'version') input[key] = value;
  return input as TaskInput;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(errors: FieldError[]): never {
  throw badRequest(errors);
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

@Injectable()
export class TasksService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly params: ParamsCheck,
    @Inject(RUN_WAKEUPS) private readonly wakeups: RunWakeups,
    private readonly heavyWork: TenantHeavyWork,
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
    const calendars = await this.calendarNames(tenantId, page);
    return {
      items: page.map((row) => taskView(row, row.calendarId === null ? null : (calendars.get(row.calendarId) ?? null))),
      nextCursor: more ? encodeNameCursor(page[page.length - 1].name) : null,
    };
  }

  async get(tenantId: string, id: number, em: EntityManager = this.dataSource.manager): Promise<TaskView> {
    const row = await findTask(em, tenantId, id);
    if (!row) throw notFound('Task', id);
    const calendars = await this.calendarNames(tenantId, [row], em);
    return taskView(row, row.calendarId === null ? null : (calendars.get(row.calendarId) ?? null));
  }

  async create(tenantId: string, dto: TaskBodyDto): Promise<TaskView> {
    const input = inputOf(dto);
    const errors = validateTask(input);
    if (errors.length) invalid(errors);
    const definition = canonical(withTaskDefaults(input, tenantId));
    await this.assertParamsFit(this.dataSource.manager, tenantId, [definition]);
    return this.writing(definition.name, () =>
      inTransaction(this.dataSource, async (em) => {
        const tenant = await findTenant(em, tenantId);
        if (!tenant) throw notFound('Tenant', tenantId);
        const calendar = await this.resolveCalendar(em, tenantId, definition.calendarName);
        await this.assertNameFree(em, tenantId, definition.name, null);
        const row = newTaskRow(definition, tenant.engineGroup, calendar, this.clock.now());
        if ('field' in row) invalid([row]);
        await insertTasks(em, [row]);
        const created = await this.get(tenantId, row.id, em);
        await this.keepVersions(em, [{ tenantId, taskId: row.id, version: row.version, definition }]);
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
    await this.assertParamsFit(this.dataSource.manager, tenantId, definitions, (i) => `tasks[${i}].`);
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
          const calendars = new Map<string, Awaited<ReturnType<TasksService['calendarByName']>>>();
          for (const name of new Set(definitions.map((d) => d.calendarName).filter((n): n is string => n !== null))) calendars.set(name, await this.calendarByName(em, tenantId, name));
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
          const views = definitions.map((d) => taskView(saved.get(d.name)!, d.calendarName));
          await this.keepVersions(em, definitions.map((d) => ({ tenantId, taskId: saved.get(d.name)!.id, version: 1, definition: d })));
          await auditChange(em, { tenantId, objectType: 'task', objectId: null, after: { tasks: views.map((v) => ({ id: v.id, name: v.name })) } });
          return views;
        }),
    );
  }

  /**
   * A new task with another task's whole definition under a new name (its params, trigger,
   * calendar, retry, alarms…), checked and saved as create() saves one; its fire count starts at
   * zero. `paused` (default: the source's) lets a copy be reviewed before it fires.
   */
  async copy(tenantId: string, id: number, name: unknown, paused: unknown): Promise<TaskView> {
    const row = await findTask(this.dataSource.manager, tenantId, id);
    if (!row) throw notFound('Task', id);
    const { tenantId: _owner, ...definition } = await this.definitionOf(this.dataSource.manager, row);
    return this.create(tenantId, { ...definition, name, paused: paused === undefined ? definition.paused : paused } as TaskBodyDto);
  }

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

  /**
   * 400 naming each param that does not fit the schema its handler's executors declare (ParamsCheck);
   * nothing is saved. Called before a save's transaction, not in it: a check may take its deadline
   * (50 ms), a new schema's compile longer, and the transaction would hold a pooled connection —
   * on SQLite the one transaction of the process — meanwhile.
   */
  async assertParamsFit(em: EntityManager, tenantId: string, definitions: readonly ParamsOf[], prefix: (i: number) => string = () => ''): Promise<void> {
    const problems = await this.params.errors(em, tenantId, definitions);
    const errors = problems.flatMap((list, i) => list.map((e) => ({ ...e, field: `${prefix(i)}${e.field}` })));
    if (errors.length) invalid(errors);
  }

  private update(
    tenantId: string,
    id: number,
    expectedVersion: number | undefined,
    next: (current: TaskDefinition) => TaskDefinition,
  ): Promise<TaskView> {
    let name = '';
    return this.writing(
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
          const before = await this.get(tenantId, id, em);
          const current = await this.definitionOf(em, row);
          const definition = next(current);
          name = definition.name;
          // Checked already, unless the task changed since (its params, app or handler come from it when not given).
          if (paramsKey(definition) !== checked) await this.assertParamsFit(em, tenantId, [definition]);
          const calendar = await this.resolveCalendar(em, tenantId, definition.calendarName);
          if (definition.name !== row.name) await this.assertNameFree(em, tenantId, definition.name, id);
          const cursor = await this.reschedule(em, row, current, definition, calendar?.definition ?? null);
          if ('field' in cursor) invalid([cursor]);
          const saved = await updateTask(em, { tenantId, id, readVersion: row.version, columns: taskDefinitionToColumns(definition, calendar?.id ?? null), ...cursor, now: this.clock.now() });
          if (!saved) {
            throw conflict(`Task ${id} was changed concurrently; reload it and try again`, [
              { field: 'version', reason: 'the task changed while it was being saved' },
            ]);
          }
          const after = await this.get(tenantId, id, em);
          await this.keepVersions(em, [{ tenantId, taskId: id, version: row.version + 1, definition }]);
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
   * store, rewound so the planner plans their instants again as the task now says. A schedule
   * that could never fire is the FieldError naming why (the caller refuses the save, and the
   * rollback keeps the fires).
   */
  async reschedule(em: EntityManager, row: TaskEntity, before: TaskDefinition, after: TaskDefinition, calendar: ExclusionCalendar | null): Promise<FireCursor | FieldError> {
    const now = this.clock.now();
    const cutoff = preparedFiresWithdrawnAfter(before, after, now);
    const withdrawn = cutoff === null ? [] : await this.withdrawPreparedFires(em, row.tenantId, [row.id], cutoff, after.paused ? WITHDRAWN_BY.pause : WITHDRAWN_BY.edit);
    return savedFireCursor(row, before, after, calendar, now, withdrawn.map((f) => f.scheduledAt));
  }

  /**
   * update()'s params check, before its transaction (see assertParamsFit): the task as it is
   * now, changed as the request says, checked; the key of what was checked (paramsKey), for the
   * transaction to see whether the task changed meanwhile. Nothing is checked where the
   * transaction answers first: a task that does not exist, or is not at the expected version.
   */
  private async paramsCheckedBefore(tenantId: string, id: number, expectedVersion: number | undefined, next: (current: TaskDefinition) => TaskDefinition): Promise<string | null> {
    const em = this.dataSource.manager;
    const row = await findTask(em, tenantId, id);
    if (!row || (expectedVersion !== undefined && expectedVersion !== row.version)) return null;
    const definition = next(await this.definitionOf(em, row));
    await this.assertParamsFit(em, tenantId, [definition]);
    return paramsKey(definition);
  }

  /** A stored task as a definition (its calendar by name). */
  private async definitionOf(em: EntityManager, row: TaskEntity): Promise<TaskDefinition> {
    const calendar = row.calendarId === null ? null : await findCalendar(em, row.tenantId, row.calendarId);
    return taskEntityToDefinition(row, calendar?.name ?? null);
  }

  /**
   * Deletes a task. A task with dependency edges is refused (409 TASK_HAS_DEPENDENCIES, listing
   * them) unless `cascade` is set, which deletes its edges too. Its active runs are cancelled
   * (guarded: only runs still in an active state); finished runs stay as history.
   */
  async delete(tenantId: string, id: number, cascade: boolean): Promise<void> {
    await inTransaction(this.dataSource, async (em) => {
      const row = await findTask(em, tenantId, id);
      if (!row) throw notFound('Task', id);
      const edges = await findTaskEdges(em, tenantId, id);
      if (edges.length > 0 && !cascade) {
        throw conflict(
          `Task "${row.name}" has ${edges.length} dependency edge(s); delete them first or pass ?cascade=true`,
          [{ field: 'dependencies', reason: `the task is in dependency edges ${edges.map((e) => e.id).join(', ')}` }],
          { code: 'TASK_HAS_DEPENDENCIES', dependencyIds: edges.map((e) => e.id) },
        );
      }
      const before = await this.get(tenantId, id, em);
      const removed = await this.removeIn(em, tenantId, id);
      await auditChange(em, { tenantId, objectType: 'task', objectId: id, before, after: removed });
    });
  }

  /**
   * A task's removal inside the caller's transaction (a DELETE, or a tasks-as-code prune): its
   * dependency edges deleted, its active runs cancelled (the run lifecycle's cancel, here and only
   * here for a task; the engines abort at their executors those they may have sent, once it
   * commits), then the task. Returns what went with it.
   */
  async removeIn(em: EntityManager, tenantId: string, id: number): Promise<{ deletedDependencies: number[]; cancelledRuns: number }> {
    const edges = await findTaskEdges(em, tenantId, id);
    await deleteEdges(em, tenantId, edges.map((e) => e.id));
    const runs = await cancelTaskRuns(em, { taskId: id, tenantId, now: this.clock.now() });
    abortAtExecutorsAfterCommit(em, this.wakeups, tenantId, runs.maybeSent);
    await deleteTask(em, tenantId, id);
    return { deletedDependencies: edges.map((e) => e.id), cancelledRuns: runs.cancelled };
  }

  /**
   * Pauses or resumes one task. Pausing withdraws the fires engines prepared ahead of their
   * instant (withdrawOnPause: a plan deleted, a claimed or sent one CANCELLED and aborted at an
   * executor that holds it) and rewinds the next fire time to the first of them. Resuming keeps
   * the stored next fire time: if it passed while the task was paused, the planner treats it as
   * a misfire under the task's misfire policy.
   */
  async setPaused(tenantId: string, id: number, paused: boolean): Promise<TaskView> {
    return inTransaction(this.dataSource, async (em) => {
      const row = await lockTask(em, tenantId, id);
      if (!row) throw notFound('Task', id);
      const before = await this.get(tenantId, id, em);
      if (row.paused !== paused) {
        const definition = { ...(await this.definitionOf(em, row)), paused };
        await this.keepVersions(em, [{ tenantId, taskId: id, version: row.version + 1, definition }]);
        await setTasksPaused(em, { tenantId, ids: [id], paused, now: this.clock.now() });
        if (paused) await this.withdrawOnPause(em, tenantId, [row]);
      }
      const after = await this.get(tenantId, id, em);
      await auditChange(em, { tenantId, objectType: 'task', objectId: id, before, after });
      return after;
    });
  }

  /** Prepared fires of the tasks due after `after` withdrawn (withdrawPreparedFires); the engines abort those they sent once the transaction commits. */
  private async withdrawPreparedFires(em: EntityManager, tenantId: string, taskIds: readonly number[], after: number, error: string) {
    const withdrawn = await withdrawPreparedFires(em, { tenantId, taskIds, after, now: this.clock.now(), error });
    abortAtExecutorsAfterCommit(em, this.wakeups, tenantId, withdrawn.filter((f) => f.mayBeSent));
    return withdrawn;
  }

  /** A pause of these tasks (read under lock): every prepared fire not come yet withdrawn, and each task's planner state rewound to plan them again when it resumes. */
  private async withdrawOnPause(em: EntityManager, tenantId: string, rows: readonly TaskEntity[]): Promise<void> {
    const withdrawn = await this.withdrawPreparedFires(em, tenantId, rows.map((r) => r.id), this.clock.now(), WITHDRAWN_BY.pause);
    // Grouped once: a group pause may withdraw many fires of many tasks.
    const instants = new Map<number, number[]>();
    for (const f of withdrawn) {
      const of = instants.get(f.taskId);
      if (of) of.push(f.scheduledAt);
      else instants.set(f.taskId, [f.scheduledAt]);
    }
    const cursors = rows.filter((r) => instants.has(r.id)).map((r) => ({ taskId: r.id, ...rewindForWithdrawn(r, instants.get(r.id)!) }));
    await setFireCursors(em, { tenantId, cursors });
  }

  /** Pauses or resumes every task of a task group of the tenant (0 tasks is not an error). */
  async setGroupPaused(tenantId: string, group: string, paused: boolean): Promise<GroupPauseView> {
    const tasks = await inTransaction(this.dataSource, async (em) => {
      // Locked as read (MySQL), so the versions kept are those the update moves.
      const rows = await lockGroupTasks(em, { tenantId, group, paused });
      await setTasksPaused(em, { tenantId, ids: rows.map((r) => r.id), paused, now: this.clock.now() });
      if (paused) await this.withdrawOnPause(em, tenantId, rows);
      const calendars = await this.calendarNames(tenantId, rows, em);
      await this.keepVersions(
        em,
        rows.map((r) => ({ tenantId, taskId: r.id, version: r.version + 1, definition: { ...taskEntityToDefinition(r, r.calendarId === null ? null : (calendars.get(r.calendarId) ?? null)), paused } })),
      );
      await auditChange(em, { tenantId, objectType: 'task-group', objectId: group, after: { paused, tasks: rows.map((r) => r.id) } });
      return rows.length;
    });
    return { group, paused, tasks };
  }

  /**
   * Runs a task now: a PENDING run, cause MANUAL, due now, with a snapshot of the task's params
   * (or of `params` when given, checked against its handler's params schema as a save checks
   * them: 400 naming each param that does not fit). Works on a paused task too: pausing stops
   * the schedule, not an explicit request.
   */
  async trigger(tenantId: string, id: number, params: unknown, flowParams?: unknown): Promise<RunDetailView> {
    if (params !== undefined) {
      const problem = paramsProblem(params);
      if (problem) invalid([problem]);
    }
    if (flowParams !== undefined) {
      const problem = paramsProblem(flowParams, 'flowParams');
      if (problem) invalid([problem]);
    }
    if (params !== undefined) {
      const task = await findTask(this.dataSource.manager, tenantId, id);
      if (!task) throw notFound('Task', id);
      await this.assertParamsFit(this.dataSource.manager, tenantId, [{ executorApp: task.executorApp, handler: task.handler, params }]);
    }
    const answer = await inTransaction(this.dataSource, async (em) => {
      const task = await findTask(em, tenantId, id);
      if (!task) throw notFound('Task', id);
      const now = this.clock.now();
      const created = await insertManualRun(em, {
        tenantId,
        taskId: task.id,
        engineGroup: task.engineGroup,
        priority: task.priority,
        params: (params === undefined ? task.params : params) as RunEntity['params'],
        flowParams: flowParams === undefined ? null : JSON.stringify(flowParams),
        now,
      });
      // The run is due now: the engines hear of it once it is committed, not at their next poll.
      afterCommit(em, () => this.wakeups.wake({ tenantId, engineGroup: task.engineGroup, dueAt: now, runIds: [created.id] }));
      await auditChange(em, { tenantId, objectType: 'task', objectId: id, after: { runId: created.id, params: params ?? null, flowParams: flowParams ?? null } });
      return runDetailView(created, task.name);
    });
    await wakeupsGone();
    return answer;
  }

  /**
   * Backfill: one run per fire of the task's trigger in [from, to) (domain backfillRange and
   * backfillFires), cause BACKFILL, under the fire key a scheduled run of that fire has
   * (`s:<time>`), so a fire that already has a run is not run twice (the unique key skips it).
   * Due one after another at `ratePerSec` from now, so a long range does not arrive as one burst;
   * no START_LATE for them, their fire time is past on purpose. Stopped with cancelBackfill.
   *
   * It holds neither the event loop nor a transaction for long (issue 20: 10,000 runs written at
   * once held the console 2–6 s, and every tenant's requests with it): the fires are computed a
   * slice (FIRES_PER_SLICE) a turn of the event loop, and written a slice (BACKFILL_SLICE runs) a
   * transaction, a turn apart — each turn a few milliseconds (docs/BENCHMARKS.md, noisy). So it is not all-or-nothing: a console stopped half-way leaves the slices written
   * so far, and the same request again writes the rest (the fires written count as alreadyRun).
   * Each slice first reads the task's cancel count under a share lock (lockTaskForBackfill): a
   * cancel while the runs are written either cancels a slice's runs or stops the slices after it,
   * which the answer counts as notWritten. A tenant's backfills are written one at a time, as its
   * other heavy requests (TenantHeavyWork), so several sent at once cost the other tenants no more than one does.
   */
  async backfill(tenantId: string, id: number, body: BackfillDto): Promise<BackfillView> {
    return this.heavyWork.run(tenantId, () => this.writeBackfill(tenantId, id, body));
  }

  /** One backfill, written while no other of its tenant's is (see backfill). */
  private async writeBackfill(tenantId: string, id: number, body: BackfillDto): Promise<BackfillView> {
    const rate = body.ratePerSec ?? DEFAULT_BACKFILL_RATE;
    if (typeof rate !== 'number' || !Number.isInteger(rate) || rate < 1 || rate > 1000) invalid([{ field: 'ratePerSec', reason: 'must be an integer from 1 to 1000' }]);
    const row = await findTask(this.dataSource.manager, tenantId, id);
    if (!row) throw notFound('Task', id);
    const calendar = row.calendarId === null ? null : await findCalendar(this.dataSource.manager, tenantId, row.calendarId);
    const definition = taskEntityToDefinition(row, calendar?.name ?? null);
    const schedule = scheduleOf(definition, { fireCount: row.fireCount, createdAt: row.createdAt }, calendar ? { name: calendar.name, timeZone: calendar.timeZone, dates: calendar.dates } : null);
    const range = backfillRange(schedule, { from: body.from, to: body.to }, this.clock.now());
    if ('errors' in range) invalid(range.errors);
    const fires: number[] = [];
    for (const slice of backfillFires(schedule, range)) {
      fires.push(...slice);
      await nextTurn();
    }
    if (fires.length > MAX_BACKFILL_FIRES) invalid([BACKFILL_TOO_MANY]);
    const now = this.clock.now();
    const spacing = 1000 / rate;
    const paramsJson = JSON.stringify(row.params);
    const rows: PlannedRunRow[] = fires.map((at, i) => ({
      cause: 'BACKFILL',
      lateAlarmedAt: now,
      tenantId,
      taskId: row.id,
      engineGroup: row.engineGroup,
      state: 'PENDING',
      fireKey: `s:${at}`,
      priority: row.priority,
      paramsJson,
      scheduledAt: at,
      dueAt: Math.round(now + i * spacing),
      finishedAt: null,
      error: null,
    }));
    let created = 0;
    let written = 0;
    // The request is audited with its first slice (the runs written from then on are its change), or alone when it has none.
    const audit = (em: EntityManager) => auditChange(em, { tenantId, objectType: 'task', objectId: id, after: { from: body.from, to: body.to, ratePerSec: rate, fires: fires.length } });
    if (rows.length === 0) await inTransaction(this.dataSource, audit);
    for (let i = 0; i < rows.length; i += BACKFILL_SLICE) {
      const slice = rows.slice(i, i + BACKFILL_SLICE);
      const made = await inTransaction(this.dataSource, async (em) => {
        const cancels = await lockTaskForBackfill(em, { taskId: row.id, tenantId });
        if (cancels === null) throw notFound('Task', id);
        if (i === 0) await audit(em);
        if (cancels !== row.backfillCancels) return null;
        const existing = await countExistingFires(em, { taskId: row.id, fireKeys: slice.map((r) => r.fireKey) });
        await insertPlannedRuns(em, slice, now);
        return slice.length - existing;
      });
      if (made === null) break;
      created += made;
      written += slice.length;
      await nextTurn();
    }
    return {
      fires: fires.length,
      created,
      alreadyRun: written - created,
      notWritten: fires.length - written,
      firstDueAt: rows[0]?.dueAt ?? null,
      lastDueAt: rows[rows.length - 1]?.dueAt ?? null,
    };
  }

  /** Stops a task's backfills: their runs not sent yet end CANCELLED, and one being written writes no more. */
  async cancelBackfill(tenantId: string, id: number): Promise<{ cancelled: number }> {
    return inTransaction(this.dataSource, async (em) => {
      if (!(await markBackfillsCancelled(em, { taskId: id, tenantId }))) throw notFound('Task', id);
      const cancelled = await cancelBackfillRuns(em, { taskId: id, tenantId, now: this.clock.now() });
      await auditChange(em, { tenantId, objectType: 'task', objectId: id, after: { cancelledRuns: cancelled } });
      return { cancelled };
    });
  }

  /** Keeps a version of each changed task, in the change's transaction (keepTaskVersions). */
  keepVersions(em: EntityManager, versions: readonly ChangedTaskVersion[]): Promise<void> {
    return keepTaskVersions(em, versions, this.clock.now());
  }

  private async calendarNames(tenantId: string, rows: TaskEntity[], em: EntityManager = this.dataSource.manager): Promise<Map<number, string>> {
    return calendarNames(em, tenantId, [...new Set(rows.map((r) => r.calendarId).filter((c): c is number => c !== null))]);
  }

  private async resolveCalendar(
    em: EntityManager,
    tenantId: string,
    name: string | null,
  ): Promise<{ id: number; definition: ExclusionCalendar } | null> {
    if (name === null) return null;
    const calendar = await this.calendarByName(em, tenantId, name);
    if (!calendar) invalid([{ field: 'calendarName', reason: `no calendar named "${name}"` }]);
    return calendar;
  }

  private async calendarByName(em: EntityManager, tenantId: string, name: string): Promise<{ id: number; definition: ExclusionCalendar } | null> {
    const row = await findCalendarByName(em, tenantId, name);
    return row ? { id: row.id, definition: { name: row.name, timeZone: row.timeZone, dates: row.dates } } : null;
  }

  private async assertNameFree(em: EntityManager, tenantId: string, name: string, exceptId: number | null): Promise<void> {
    const existing = await findTaskIdByName(em, tenantId, name);
    if (existing !== null && existing !== exceptId) throw duplicateName(name);
  }

  /** createMany's writing(): a name taken by a concurrent writer after the check is a 409 too (nothing was created). */
  private async writingMany<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict('A name of this batch was taken meanwhile; nothing was created', [{ field: 'tasks', reason: 'a name was taken by another request meanwhile' }]);
      throw error;
    }
  }

  /** Maps a unique-key violation (a concurrent writer took the name) to the same 409 as the check. */
  private async writing<T>(name: string | (() => string), work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicateName(typeof name === 'function' ? name() : name);
      throw error;
    }
  }
}

/** What a params check depends on in a task: the same key, the same verdict (for a given set of live executors). */
function paramsKey(definition: TaskDefinition): string {
  return JSON.stringify([definition.executorApp, definition.handler, definition.params]);
}

/** A new task's row (its first fire computed from its trigger), or why it can never fire. */
export function newTaskRow(
  definition: TaskDefinition,
  engineGroup: string,
  calendar: { id: number; definition: ExclusionCalendar } | null,
  now: number,
): TaskEntity | FieldError {
  const schedule = scheduleOf(definition, { fireCount: 0, createdAt: now }, calendar?.definition ?? null);
  const nextFireAt = nextFireAtFor(schedule, now, { nextFireAt: null, kindBefore: null });
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

function duplicateName(name: string) {
  return conflict(`A task named "${name}" already exists`, [{ field: 'name', reason: `a task named "${name}" already exists` }]);
}
