import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { deleteEdges, deleteTask, findTaskEdges, inTransaction, lockTask } from '@baton/persistence';
import { auditChange } from '../audit';
import { conflict, notFound } from '../common/api-error';
import { RunChangesService } from '../run-changes/run-changes.service';
import { TaskReadsService } from './task-reads.service';

/** A task's deletion, and its removal inside another change (a tasks-as-code prune). */
@Injectable()
export class TaskRemovalService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly reads: TaskReadsService,
    private readonly runChanges: RunChangesService,
  ) {}

  /**
   * Deletes a task. A task with dependency edges is refused (409 TASK_HAS_DEPENDENCIES, listing
   * them) unless `cascade` is set, which deletes its edges too. Its active runs are cancelled
   * (guarded: only runs still in an active state); finished runs stay as history.
   */
  async delete(tenantId: string, id: number, cascade: boolean): Promise<void> {
    await inTransaction(this.dataSource, async (em) => {
      // Locked first: a submission batch holds its tasks in share mode (lockSubmittedTasks) while it writes their runs.
      const row = await lockTask(em, tenantId, id);
      if (!row) throw notFound('Task', id);
      const edges = await findTaskEdges(em, tenantId, id);
      if (edges.length > 0 && !cascade) {
        throw conflict(
          `Task "${row.name}" has ${edges.length} dependency edge(s); delete them first or pass ?cascade=true`,
          [{ field: 'dependencies', reason: `the task is in dependency edges ${edges.map((e) => e.id).join(', ')}` }],
          { code: 'TASK_HAS_DEPENDENCIES', dependencyIds: edges.map((e) => e.id) },
        );
      }
      const before = await this.reads.get(tenantId, id, em);
      const removed = await this.removeIn(em, tenantId, id);
      await auditChange(em, { tenantId, objectType: 'task', objectId: id, before, after: removed });
    });
  }

  /**
   * A task's removal inside the caller's transaction (a DELETE, or a tasks-as-code prune): its
   * dependency edges deleted, its active runs cancelled (RunChangesService.cancelAllOfTask), then
   * the task. Returns what went with it.
   */
  async removeIn(em: EntityManager, tenantId: string, id: number): Promise<{ deletedDependencies: number[]; cancelledRuns: number }> {
    await lockTask(em, tenantId, id); // before its runs: see delete()
    const edges = await findTaskEdges(em, tenantId, id);
    await deleteEdges(em, tenantId, edges.map((e) => e.id));
    const cancelledRuns = await this.runChanges.cancelAllOfTask(em, tenantId, id);
    await deleteTask(em, tenantId, id);
    return { deletedDependencies: edges.map((e) => e.id), cancelledRuns };
  }
}
