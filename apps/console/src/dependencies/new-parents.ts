import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { EDIT_REACHES_FIRES_AFTER_MS, rewindForWithdrawn } from '@baton/domain';
import { instantsGivenBack, lockTask, setFireCursors, WITHDRAWN_BY } from '@baton/persistence';
import { CLOCK, type Clock } from '../common/clock';
import { RunChangesService } from '../run-changes/run-changes.service';

/**
 * Tasks becoming parents: the first dependency edge out of a task reaches its prepared fires
 * (domain prepared-fires.ts) as an edit of a field they carry does. Why: an engine reads whether a
 * run's task has children when it claims the run (find-claimed-run-tasks.ts) and ends a success
 * whose task had none without looking for edges (the callbacks' plain successes), so a fire
 * claimed or sent ahead before the edge existed would never start the new child. Its fires due more
 * than EDIT_REACHES_FIRES_AFTER_MS after the edge are withdrawn (RunChangesService: a plan deleted, a
 * claimed or sent one cancelled and aborted at its executor) and its schedule rewound, so the
 * planner plans those instants again and their claims see the edge; the nearer ones run as
 * prepared, without it. A task with children already needs nothing: the end of its runs reads
 * its edges then, the new one included.
 */
@Injectable()
export class NewParents {
  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly runChanges: RunChangesService,
  ) {}

  /** In the transaction that inserts the edges: `parentTaskIds` are the tenant's tasks that had no child before it. */
  async edgesAdded(em: EntityManager, tenantId: string, parentTaskIds: readonly number[]): Promise<void> {
    const after = this.clock.now() + EDIT_REACHES_FIRES_AFTER_MS;
    for (const id of new Set(parentTaskIds)) {
      // Under the task's lock, so the planner does not move its schedule between the read and the rewind.
      const task = await lockTask(em, tenantId, id);
      if (!task) continue;
      const withdrawn = await this.runChanges.withdrawFires(em, tenantId, [id], after, WITHDRAWN_BY.dependency);
      const givenBack = instantsGivenBack(withdrawn);
      if (givenBack.length === 0) continue;
      await setFireCursors(em, { tenantId, cursors: [{ taskId: id, ...rewindForWithdrawn(task, givenBack) }] });
    }
  }
}
