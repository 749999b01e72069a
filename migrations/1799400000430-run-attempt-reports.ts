import { MigrationInterface, QueryRunner, Table } from 'typeorm';

/**
 * `run_attempt_reports`: one row per attempt whose executor's final report was taken though
 * Baton had ended the attempt itself (cancelled or timed out while it ran: its start and the
 * handler's last log lines are kept, its outcome refused), or whose report ended it TIMED_OUT.
 * Keyed by (run_id, attempt): a second copy of the report (an executor sends a callback again
 * when its answer was lost) finds the row and keeps nothing. Deleted with its run.
 */
export class RunAttemptReports1799400000430 implements MigrationInterface {
  name = 'RunAttemptReports1799400000430';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const sqlite = queryRunner.connection.options.type === 'better-sqlite3' || queryRunner.connection.options.type === 'sqlite';
    // SQLite names the entities' 'int' INTEGER: the same word here, so the schemas compare equal (as 1798200000000-submission-keys.ts).
    const int = sqlite ? 'integer' : 'int';
    await queryRunner.createTable(
      new Table({
        name: 'run_attempt_reports',
        columns: [
          { name: 'run_id', type: 'bigint', isPrimary: true },
          { name: 'attempt', type: int, isPrimary: true },
          { name: 'tenant_id', type: 'varchar', length: '64' },
          { name: 'taken_at', type: 'bigint' },
        ],
      }),
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('run_attempt_reports');
  }
}
