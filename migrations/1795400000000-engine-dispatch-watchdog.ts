import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';

/**
 * Columns and indexes for the engine's dispatch side (apps/engine/src/{dispatch,callbacks,watchdog}).
 *
 * Columns on `runs`:
 * - `deadline_at` (BIGINT NULL): when the current attempt times out. Written with the state
 *   change that starts the clock (CLAIMED → DISPATCHED: dispatched_at + timeout; DISPATCHED →
 *   ACCEPTED: accepted_at + timeout), cleared when the attempt ends. The TIMEOUT scan then is
 *   an index range `state IN (DISPATCHED, ACCEPTED) AND deadline_at < now` instead of a join
 *   with tasks over every executing run on every watchdog tick.
 * - `late_alarmed_at` (BIGINT NULL): when START_LATE was raised for the run. The watchdog sets
 *   it with a guarded `… WHERE late_alarmed_at IS NULL` in the same transaction as the alarm
 *   row, so with several engines the alarm is written once per run; chosen over
 *   `NOT EXISTS (SELECT … FROM alarms …)` because alarms has no (run, type) index, two engines'
 *   NOT EXISTS reads can both see "none" (no row to lock), and the column lets the scan's index
 *   skip runs already alarmed.
 *
 * Indexes on `runs`, one per watchdog/dispatch scan that would otherwise read the whole table
 * (history included) every few hundred milliseconds:
 * - `ix_runs_late` (engine_group, state, late_alarmed_at, scheduled_at): START_LATE —
 *   not-yet-dispatched runs of my groups, not alarmed yet, scheduled in the past.
 * - `ix_runs_deadline` (engine_group, state, deadline_at): TIMEOUT.
 * - `ix_runs_executor` (executor_id, state): reconciliation of a DOWN executor's runs.
 * - `ix_runs_task_state` (task_id, state): concurrency FORBID/REPLACE — "is another run of
 *   this task executing?" (ix_runs_task_time would walk the task's whole history).
 */
export class EngineDispatchWatchdog1795400000000 implements MigrationInterface {
  name = 'EngineDispatchWatchdog1795400000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    if (isSqlite(queryRunner)) {
      // Not the Table API here: on SQLite TypeORM's addColumn rebuilds the whole table from what
      // it can read back of the schema, and it cannot read ix_runs_claim's DESC key part (made
      // by a raw statement in 1795321245350) — the rebuild silently dropped that index. SQLite's
      // own ADD COLUMN of a nullable column is a catalogue change: no rebuild, indexes kept.
      for (const column of COLUMNS) await queryRunner.query(`ALTER TABLE "runs" ADD COLUMN "${column}" bigint`);
    } else {
      await queryRunner.addColumns(
        'runs',
        COLUMNS.map((name) => new TableColumn({ name, type: 'bigint', isNullable: true })),
      );
    }
    await queryRunner.createIndices('runs', [
      new TableIndex({ name: 'ix_runs_late', columnNames: ['engine_group', 'state', 'late_alarmed_at', 'scheduled_at'] }),
      new TableIndex({ name: 'ix_runs_deadline', columnNames: ['engine_group', 'state', 'deadline_at'] }),
      new TableIndex({ name: 'ix_runs_executor', columnNames: ['executor_id', 'state'] }),
      new TableIndex({ name: 'ix_runs_task_state', columnNames: ['task_id', 'state'] }),
    ]);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const name of ['ix_runs_task_state', 'ix_runs_executor', 'ix_runs_deadline', 'ix_runs_late']) {
      await queryRunner.dropIndex('runs', name);
    }
    for (const column of [...COLUMNS].reverse()) {
      // SQLite ≥ 3.35 drops a column in place (no rebuild: see up()); the indexes on it are gone by now.
      if (isSqlite(queryRunner)) await queryRunner.query(`ALTER TABLE "runs" DROP COLUMN "${column}"`);
      else await queryRunner.dropColumn('runs', column);
    }
  }
}

const COLUMNS = ['deadline_at', 'late_alarmed_at'] as const;

function isSqlite(queryRunner: QueryRunner): boolean {
  const type = queryRunner.connection.options.type;
  return type === 'better-sqlite3' || type === 'sqlite';
}
