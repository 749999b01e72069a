import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `history_cursors.purge_due_at` BIGINT NOT NULL DEFAULT 0: when the history job next purges the
 * tenant (epoch ms; 0: at its next turn). The job visits a tenant only when it has ended runs to
 * roll up or its purge is due (apps/engine/src/history/history-job.ts): before, every turn visited
 * every tenant with ~20 statements whether or not there was anything to do, and 1,000 idle tenants
 * kept an idle cluster about one core busy (docs/BENCHMARKS.md, "A platform's other tenants"). In
 * the row, not in an engine's memory, so that the engines sharing the tenants agree on it.
 */
export class HistoryPurgeDue1799200000000 implements MigrationInterface {
  name = 'HistoryPurgeDue1799200000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Plain ALTER TABLE … ADD COLUMN (see 1796630000000-single-sign-on.ts for why not addColumn).
    await queryRunner.query('ALTER TABLE history_cursors ADD COLUMN purge_due_at BIGINT NOT NULL DEFAULT 0');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE history_cursors DROP COLUMN purge_due_at');
  }
}
