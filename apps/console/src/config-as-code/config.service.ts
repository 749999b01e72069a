import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { validateRetention, type ExclusionCalendar, type FieldError, type TaskDefinition } from '@baton/domain';
import {
  CalendarEntity,
  deleteCalendar,
  deleteEdges,
  deleteWebhookChannel,
  findCalendar,
  findCalendarTasks,
  findTasksByName,
  findTenant,
  lockTenant,
  insertCalendar,
  insertEdge,
  insertTasks,
  insertWebhookChannel,
  inTransaction,
  RetentionPolicyEntity,
  saveRetentionPolicy,
  setManagedHash,
  TaskDependencyEntity,
  TaskEntity,
  taskDefinitionToColumns,
  taskEntityToDefinition,
  TenantEntity,
  updateCalendar,
  updateEdge,
  updateTask,
  updateWebhookChannel,
  WebhookChannelEntity,
  withIdleAllowance,
} from '@baton/persistence';
import { auditChange } from '../audit';
import { badRequest, conflict, notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import { CONSOLE_OPTIONS, ResolvedConsoleOptions } from '../common/options';
import { randomToken } from '../common/secrets';
import { CalendarsService } from '../calendars/calendars.service';
import { keepTaskVersions } from '../tasks/keep-task-versions';
import { newTaskRow } from '../tasks/new-task-row';
import { neverFiringTasks } from './never-firing-tasks';
import { applyAudit } from './apply-audit';
import { ParamsCheck } from '../tasks/params-check';
import { TaskEditsService } from '../tasks/task-edits.service';
import { TaskRemovalService } from '../tasks/task-removal.service';
import { WebhooksService } from '../webhooks/webhooks.service';
import { definitionOf, type FileTask } from '../tasks/file-task';
import type { ConfigFile, ExportShown } from './config-file';
import { edgeName, fileRefusal, type PlannedChange } from './config-plan';
import { readSnapshot, TENANT_RETENTION_ROW, type Snapshot } from './config-snapshot';
import { managedHash } from '../tasks/managed-hash';
import { TenantHeavyWork } from '../common/tenant-heavy-work';
import { nextTurn } from '../common/next-turn';
import { ConfigThreads } from './config-threads';
import { cycleRefusal } from '../dependencies/cycle-refusal';
import { NewParents } from '../dependencies/new-parents';
import { planOf, type PlanInput } from './plan-input';

/**
 * Tasks as code: a tenant's state as one file (export), what a file would change (plan), and the
 * change made (apply) in one transaction — all of it or, at the first refusal, none. Tasks an
 * apply writes are managed: they keep the hash of the definition the file gave them, so an
 * edit made in the console afterwards shows as drift.
 */
/**
 * How long an apply's transaction may sit between two statements (s): it works out every task's
 * schedule before writing them, about a second for 1,000 tasks, longer on a loaded machine. The
 * other transactions keep MariaDB's 5 s (libs/persistence data-source.ts).
 */
const APPLY_IDLE_S = 60;

/** Tasks an apply works out on one turn of the event loop (their rows, first fire times and hashes) before letting other requests in. */
const ROWS_A_TURN = 250;

@Injectable()
export class ConfigService implements OnApplicationShutdown {
  /** Files are parsed and checked, and plans computed, off the event loop (ConfigThread). */
  private readonly thread = new ConfigThreads();

  constructor(
    private readonly dataSource: DataSource,
    private readonly params: ParamsCheck,
    private readonly taskEdits: TaskEditsService,
    private readonly taskRemoval: TaskRemovalService,
    private readonly webhooks: WebhooksService,
    private readonly calendarsService: CalendarsService,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CONSOLE_OPTIONS) private readonly options: ResolvedConsoleOptions,
    private readonly heavyWork: TenantHeavyWork,
    private readonly newParents: NewParents,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.thread.close();
  }

  /** Export, plan and apply read (and apply writes) a whole tenant: each is a tenant's heavy request (TenantHeavyWork). */
  export(tenantId: string, shown: ExportShown): Promise<string> {
    return this.heavyWork.run(tenantId, async () => {
      const snapshot = await readSnapshot(this.dataSource.manager, tenantId);
      return this.thread.write(snapshot.file, tenantId, shown);
    });
  }

  /** The changes applying the file would make (PlannedChange[]) as JSON text (ConfigThread.plan). */
  plan(tenantId: string, text: string, prune: boolean): Promise<string> {
    return this.heavyWork.run(tenantId, async () => {
      const desired = await this.desired(tenantId, text);
      const snapshot = await readSnapshot(this.dataSource.manager, tenantId);
      assertApplicable(snapshot, desired, prune);
      const never = neverFiringTasks(tenantId, snapshot, desired, this.clock.now());
      if (never.length > 0) throw badRequest(never);
      return this.thread.plan(this.planInput(snapshot, desired, prune));
    });
  }

  /** The changes made (PlannedChange[]) as JSON text (ConfigThread.plan). */
  apply(tenantId: string, text: string, prune: boolean): Promise<string> {
    return this.heavyWork.run(tenantId, () => this.applyAll(tenantId, text, prune));
  }

  /** One apply: every change in one transaction, or none (see apply). */
  private async applyAll(tenantId: string, text: string, prune: boolean): Promise<string> {
    const desired = await this.desired(tenantId, text);
    const now = this.clock.now();
    // The changes are listed in the transaction; their fire-time previews after it, in the worker
    // (planOf): a second of croner for 1,000 tasks would hold the transaction and the event loop.
    const planned = await inTransaction(this.dataSource, (em) => withIdleAllowance(em, APPLY_IDLE_S, async () => {
      // The tenant's row locked first, as POST /api/dependencies locks it for its cycle check: an
      // edge saved meanwhile through the API is in this snapshot or waits for this apply, so the two
      // cannot close a cycle together (each checked against what the other had not yet committed).
      await lockTenant(em, tenantId);
      const tenant = await findTenant(em, tenantId);
      if (!tenant) throw notFound('Tenant', tenantId);
      const snapshot = await readSnapshot(em, tenantId);
      assertApplicable(snapshot, desired, prune);
      const input = this.planInput(snapshot, desired, prune, now);
      const changes = planOf(input, false);
      const of = (kind: PlannedChange['kind'], action: PlannedChange['action']) => new Set(changes.filter((c) => c.kind === kind && c.action === action).map((c) => c.name));
      if (desired.retention && changes.some((c) => c.kind === 'retention')) await this.applyRetention(em, tenantId, desired.retention, now);
      const calendars = await this.applyCalendars(em, tenantId, snapshot, desired, of('calendar', 'create'), of('calendar', 'update'), now);
      await this.applyWebhooks(em, tenantId, snapshot, desired, of('webhook', 'create'), of('webhook', 'update'), now);
      const taskIds = await this.applyTasks(em, tenant, snapshot, desired, calendars, of('task', 'create'), of('task', 'update'), now);
      await this.applyDependencies(em, tenantId, snapshot, desired, taskIds, prune, now);
      // A calendar's new dates move the next fire of the tasks using it, as a console edit does (the tasks just written already have theirs).
      for (const name of of('calendar', 'update')) {
        const row = await findCalendar(em, tenantId, snapshot.calendars.get(name)!.id);
        await this.calendarsService.refreshTasks(em, tenantId, row!);
      }
      // Deletions last: what is pruned may still be named by what was just changed away from it.
      for (const name of of('task', 'delete')) {
        await this.taskRemoval.removeIn(em, tenantId, snapshot.tasks.get(name)!.id);
      }
      for (const name of of('webhook', 'delete')) {
        // As a console delete: its pending deliveries go, its delivered history stays.
        await deleteWebhookChannel(em, tenantId, snapshot.webhooks.get(name)!.id);
      }
      for (const name of of('calendar', 'delete')) {
        const row = snapshot.calendars.get(name)!;
        const users = await findCalendarTasks(em, tenantId, row.id, 5);
        if (users.length > 0) throw badRequest([{ field: 'calendars', reason: `calendar "${name}" is pruned but still used by task ${users.map((u) => `"${u.name}"`).join(', ')}` }]);
        await deleteCalendar(em, tenantId, row.id);
      }
      await auditChange(em, { tenantId, objectType: 'config', objectId: null, after: applyAudit(prune, changes, snapshot.file) });
      return input;
    }));
    return this.thread.plan(planned);
  }

  /** The file read and checked, with the checks that need the tenant (webhook URLs by the outbound policy, handler params by their schemas). */
  private async desired(tenantId: string, text: string): Promise<ConfigFile> {
    const read = await this.thread.read(text, tenantId);
    if ('errors' in read) throw badRequest(read.errors);
    const errors: FieldError[] = [];
    for (const [i, webhook] of read.file.webhooks.entries()) {
      const problem = await this.webhooks.urlProblem(tenantId, webhook.url);
      if (problem) errors.push({ field: `webhooks[${i}].url`, reason: problem });
    }
    if (read.file.retention) errors.push(...validateRetention(read.file.retention, this.options.retentionCeiling, 'retention.'));
    if (errors.length > 0) throw badRequest(errors);
    await this.params.assertFit(this.dataSource.manager, tenantId, read.file.tasks.map((t) => definitionOf(t, tenantId)), (i) => `tasks[${i}].`);
    return read.file;
  }

  /** What a plan of `desired` against `snapshot` is computed from (planOf), as of `now`. */
  private planInput(snapshot: Snapshot, desired: ConfigFile, prune: boolean, now = this.clock.now()): PlanInput {
    const rows: PlanInput['rows'] = {};
    for (const [name, row] of snapshot.tasks) rows[name] = { fireCount: row.fireCount, createdAt: row.createdAt };
    return { current: snapshot.file, desired, prune, now, rows };
  }

  private async applyRetention(em: EntityManager, tenantId: string, retention: NonNullable<ConfigFile['retention']>, now: number): Promise<void> {
    await saveRetentionPolicy(em, Object.assign(new RetentionPolicyEntity(), { tenantId, taskId: TENANT_RETENTION_ROW, ...retention, updatedAt: now }));
  }

  /** Creates and updates the file's calendars; answers every calendar of the tenant after it, by name. */
  private async applyCalendars(em: EntityManager, tenantId: string, snapshot: Snapshot, desired: ConfigFile, create: Set<string>, update: Set<string>, now: number): Promise<Map<string, { id: number; definition: ExclusionCalendar }>> {
    const result = new Map([...snapshot.calendars].map(([name, row]) => [name, { id: row.id, definition: { name, timeZone: row.timeZone, dates: row.dates } }]));
    for (const calendar of desired.calendars) {
      if (create.has(calendar.name)) {
        const row = Object.assign(new CalendarEntity(), { tenantId, ...calendar, createdAt: now });
        await insertCalendar(em, row);
        result.set(calendar.name, { id: row.id, definition: calendar });
      } else if (update.has(calendar.name)) {
        const id = snapshot.calendars.get(calendar.name)!.id;
        await updateCalendar(em, tenantId, id, { name: calendar.name, timeZone: calendar.timeZone, dates: calendar.dates });
        result.set(calendar.name, { id, definition: calendar });
      }
    }
    return result;
  }

  private async applyWebhooks(em: EntityManager, tenantId: string, snapshot: Snapshot, desired: ConfigFile, create: Set<string>, update: Set<string>, now: number): Promise<void> {
    for (const webhook of desired.webhooks) {
      // A new channel gets its signing secret here; it is never in a file (GET /api/webhooks does not show it either: rotate it there).
      if (create.has(webhook.name)) await insertWebhookChannel(em, Object.assign(new WebhookChannelEntity(), { tenantId, ...webhook, secret: `whsec_${randomToken()}`, createdAt: now }));
      else if (update.has(webhook.name)) await updateWebhookChannel(em, tenantId, snapshot.webhooks.get(webhook.name)!.id, { url: webhook.url, alarmTypes: webhook.alarmTypes, minSeverity: webhook.minSeverity });
    }
  }

  /** Creates and updates the file's tasks (managed from now on, a version kept of each); answers every task id of the tenant by name. */
  private async applyTasks(
    em: EntityManager,
    tenant: TenantEntity,
    snapshot: Snapshot,
    desired: ConfigFile,
    calendars: Map<string, { id: number; definition: ExclusionCalendar }>,
    create: Set<string>,
    update: Set<string>,
    now: number,
  ): Promise<Map<string, number>> {
    const tenantId = tenant.id;
    const ids = new Map([...snapshot.tasks].map(([name, row]) => [name, row.id]));
    const errors: FieldError[] = [];
    // Every calendar named is the file's or the tenant's (assertApplicable).
    const calendarOf = (task: FileTask) => (task.calendarName === null ? null : calendars.get(task.calendarName)!);
    const versions: Array<{ tenantId: string; taskId: number; version: number; definition: TaskDefinition }> = [];
    const created: TaskEntity[] = [];
    for (const [i, task] of desired.tasks.entries()) {
      // Each new row's first fire time is cron arithmetic: 5,000 at once held the event loop up to 0.7 s (MariaDB, a loaded machine); other requests are served between slices.
      if (i > 0 && i % ROWS_A_TURN === 0) await nextTurn();
      const definition = definitionOf(task, tenantId);
      if (create.has(task.name)) {
        const row = newTaskRow(definition, tenant.engineGroup, calendarOf(task), now);
        if ('field' in row) errors.push({ ...row, field: `tasks[${i}].${row.field}` });
        else created.push(Object.assign(row, { managedHash: managedHash(task) }));
      } else if (snapshot.tasks.has(task.name)) {
        const row = snapshot.tasks.get(task.name)!;
        const hash = managedHash(task);
        if (!update.has(task.name)) {
          // Unchanged, but now named by a file: it becomes managed (or stays so).
          if (row.managedHash !== hash) await setManagedHash(em, tenantId, row.id, hash);
          continue;
        }
        const calendar = calendarOf(task);
        const current = taskEntityToDefinition(row, row.calendarId === null ? null : ([...calendars.values()].find((c) => c.id === row.calendarId)?.definition.name ?? null));
        const cursor = await this.taskEdits.reschedule(em, row, current, definition, calendar?.definition ?? null);
        if ('field' in cursor) {
          errors.push({ ...cursor, field: `tasks[${i}].${cursor.field}` });
          continue;
        }
        const saved = await updateTask(em, { tenantId, id: row.id, readVersion: row.version, columns: taskDefinitionToColumns(definition, calendar?.id ?? null), ...cursor, now, managedHash: hash });
        if (!saved) throw conflict(`Task "${task.name}" was changed meanwhile: plan again`, [{ field: `tasks[${i}]`, reason: 'changed meanwhile' }]);
        versions.push({ tenantId, taskId: row.id, version: row.version + 1, definition });
      }
    }
    if (errors.length > 0) throw badRequest(errors);
    await insertTasks(em, created);
    if (created.length > 0) {
      for (const row of await findTasksByName(em, tenantId, created.map((r) => r.name))) ids.set(row.name, row.id);
      for (const row of created) versions.push({ tenantId, taskId: ids.get(row.name)!, version: 1, definition: definitionOf(desired.tasks.find((t) => t.name === row.name)!, tenantId) });
    }
    await keepTaskVersions(em, versions, this.clock.now());
    return ids;
  }

  /** Creates the file's edges (condition and approval step updated on existing ones) and prunes the others when asked. */
  private async applyDependencies(em: EntityManager, tenantId: string, snapshot: Snapshot, desired: ConfigFile, taskIds: Map<string, number>, prune: boolean, now: number): Promise<void> {
    // Both ends of every edge are named, and no cycle closed (assertApplicable).
    const wanted = new Map(desired.dependencies.map((d) => [edgeName(d), d]));
    const parentsBefore = new Set([...snapshot.edges.values()].map((e) => e.parentTaskId));
    const newParents: number[] = [];
    for (const [name, edge] of wanted) {
      const existing = snapshot.edges.get(name);
      if (!existing) {
        const parentTaskId = taskIds.get(edge.parent)!;
        await insertEdge(em, Object.assign(new TaskDependencyEntity(), { tenantId, parentTaskId, childTaskId: taskIds.get(edge.child)!, condition: edge.condition, approval: edge.approval, createdAt: now }));
        if (!parentsBefore.has(parentTaskId)) newParents.push(parentTaskId);
      } else if (existing.condition !== edge.condition || JSON.stringify(existing.approval) !== JSON.stringify(edge.approval)) {
        await updateEdge(em, tenantId, existing.id, { condition: edge.condition, approval: edge.approval });
      }
    }
    await this.newParents.edgesAdded(em, tenantId, newParents);
    if (prune) {
      const stale = [...snapshot.edges].filter(([name]) => !wanted.has(name)).map(([, row]) => row.id);
      await deleteEdges(em, tenantId, stale);
    }
  }
}

/** A 400 naming each name the file gives that the tenant would not have, or a 409 naming the cycle it would close and its edge that closes it (fileRefusal): before anything is written. */
function assertApplicable(snapshot: Snapshot, desired: ConfigFile, prune: boolean): void {
  const refusal = fileRefusal(snapshot.file, desired, prune);
  if (refusal === null) return;
  if ('errors' in refusal) throw badRequest(refusal.errors);
  throw cycleRefusal(refusal.cycle, refusal.field);
}
