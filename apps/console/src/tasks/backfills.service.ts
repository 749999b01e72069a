import { Inject, Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { BACKFILL_SLICE, BACKFILL_TOO_MANY, backfillFires, backfillRange, MAX_BACKFILL_FIRES } from '@baton/domain';
import { countExistingFires, findCalendar, findTask, insertPlannedRuns, inTransaction, lockTaskForRuns, taskEntityToDefinition, type PlannedRunRow } from '@baton/persistence';
import { auditChange } from '../audit';
import { notFound } from '../common/api-error';
import { CLOCK, Clock } from '../common/clock';
import { nextTurn } from '../common/next-turn';
import { TenantHeavyWork } from '../common/tenant-heavy-work';
import { RunChangesService } from '../run-changes/run-changes.service';
import { DEFAULT_BACKFILL_RATE, type BackfillDto, type BackfillView } from './dto/task.dto';
import { scheduleOf } from './schedule';
import { invalid } from './task-input';

/** A task's past fires run now (a backfill), and a backfill stopped. */
@Injectable()
export class BackfillsService {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly heavyWork: TenantHeavyWork,
    private readonly runChanges: RunChangesService,
  ) {}

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
   * Each slice first reads the task's cancel count under a share lock (lockTaskForRuns): a
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
    // Each slice's engine group is the task's as that slice locks it (lockTaskForRuns).
    const rows: Array<Omit<PlannedRunRow, 'engineGroup'>> = fires.map((at, i) => ({
      cause: 'BACKFILL',
      lateAlarmedAt: now,
      tenantId,
      taskId: row.id,
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
        const locked = await lockTaskForRuns(em, { taskId: row.id, tenantId });
        if (locked === null) throw notFound('Task', id);
        if (i === 0) await audit(em);
        if (locked.backfillCancels !== row.backfillCancels) return null;
        const existing = await countExistingFires(em, { taskId: row.id, fireKeys: slice.map((r) => r.fireKey) });
        await insertPlannedRuns(em, slice.map((r) => ({ ...r, engineGroup: locked.engineGroup })), now);
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

  /** Stops a task's backfills (RunChangesService.stopBackfills): their runs not sent yet end CANCELLED, and one being written writes no more. */
  async cancelBackfill(tenantId: string, id: number): Promise<{ cancelled: number }> {
    return inTransaction(this.dataSource, async (em) => {
      const cancelled = await this.runChanges.stopBackfills(em, tenantId, id);
      if (cancelled === null) throw notFound('Task', id);
      await auditChange(em, { tenantId, objectType: 'task', objectId: id, after: { cancelledRuns: cancelled } });
      return { cancelled };
    });
  }
}
