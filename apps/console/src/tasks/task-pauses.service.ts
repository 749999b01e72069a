import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { rewindForWithdrawn } from '@baton/domain';
import { instantsGivenBack, inTransaction, lockGroupTasks, lockTask, setFireCursors, setTasksPaused, TaskEntity, taskEntityToDefinition, WITHDRAWN_BY } from '@baton/persistence';
import { auditChange } from '../audit';
import { notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import { RunChangesService } from '../run-changes/run-changes.service';
import type { GroupPauseView, TaskView } from './dto/task.dto';
import { keepTaskVersions } from './keep-task-versions';
import { calendarNamesOf, definitionOf } from './task-calendars';
import { TaskReadsService } from './task-reads.service';

/** Pausing and resuming a task, or every task of a task group. */
@Injectable()
export class TaskPausesService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly reads: TaskReadsService,
    private readonly runChanges: RunChangesService,
  ) {}

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
      const before = await this.reads.get(tenantId, id, em);
      if (row.paused !== paused) {
        const definition = { ...(await definitionOf(em, row)), paused };
        await keepTaskVersions(em, [{ tenantId, taskId: id, version: row.version + 1, definition }], this.clock.now());
        await setTasksPaused(em, { tenantId, ids: [id], paused, now: this.clock.now() });
        if (paused) await this.withdrawOnPause(em, tenantId, [row]);
      }
      const after = await this.reads.get(tenantId, id, em);
      await auditChange(em, { tenantId, objectType: 'task', objectId: id, before, after });
      return after;
    });
  }

  /** Pauses or resumes every task of a task group of the tenant (0 tasks is not an error). */
  async setGroupPaused(tenantId: string, group: string, paused: boolean): Promise<GroupPauseView> {
    const tasks = await inTransaction(this.dataSource, async (em) => {
      // Locked as read (MySQL), so the versions kept are those the update moves.
      const rows = await lockGroupTasks(em, { tenantId, group, paused });
      await setTasksPaused(em, { tenantId, ids: rows.map((r) => r.id), paused, now: this.clock.now() });
      if (paused) await this.withdrawOnPause(em, tenantId, rows);
      const calendars = await calendarNamesOf(em, tenantId, rows);
      await keepTaskVersions(
        em,
        rows.map((r) => ({ tenantId, taskId: r.id, version: r.version + 1, definition: { ...taskEntityToDefinition(r, r.calendarId === null ? null : (calendars.get(r.calendarId) ?? null)), paused } })),
        this.clock.now(),
      );
      await auditChange(em, { tenantId, objectType: 'task-group', objectId: group, after: { paused, tasks: rows.map((r) => r.id) } });
      return rows.length;
    });
    return { group, paused, tasks };
  }

  /**
   * A pause of these tasks (read under lock): every prepared fire not come yet withdrawn, and each
   * task's planner state rewound to plan them again when it resumes — those no executor can have
   * (instantsGivenBack); the engines give back a sent one's instant the same way once its executor
   * says it never started it, and one that started is not replayed by the resume.
   */
  private async withdrawOnPause(em: EntityManager, tenantId: string, rows: readonly TaskEntity[]): Promise<void> {
    const withdrawn = await this.runChanges.withdrawFires(em, tenantId, rows.map((r) => r.id), this.clock.now(), WITHDRAWN_BY.pause);
    // Grouped once: a group pause may withdraw many fires of many tasks.
    const instants = new Map<number, number[]>();
    for (const f of withdrawn) {
      const [at] = instantsGivenBack([f]);
      if (at === undefined) continue;
      const of = instants.get(f.taskId);
      if (of) of.push(at);
      else instants.set(f.taskId, [at]);
    }
    const cursors = rows.filter((r) => instants.has(r.id)).map((r) => ({ taskId: r.id, ...rewindForWithdrawn(r, instants.get(r.id)!) }));
    await setFireCursors(em, { tenantId, cursors });
  }
}
