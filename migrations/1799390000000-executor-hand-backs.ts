import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `executors.hand_backs` INT NOT NULL DEFAULT 0: how many times engines have handed back (sent
 * again elsewhere) the runs sent ahead to the executor at this URL while it was silent — the ones
 * it provably never started (apps/engine/src/watchdog/sent-ahead-hand-backs.ts). Each heartbeat's
 * ack carries it (`handBacks`), read after the heartbeat's own write of the row: an executor that
 * comes back and sees it changed drops what it holds for later instants instead of starting them.
 */
export class ExecutorHandBacks1799390000000 implements MigrationInterface {
  name = 'ExecutorHandBacks1799390000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Plain ALTER TABLE … ADD COLUMN (see 1796630000000-single-sign-on.ts for why not addColumn);
    // INTEGER is SQLite's name of what TypeORM maps `int` to there.
    const type = isSqlite(queryRunner) ? 'INTEGER' : 'INT';
    await queryRunner.query(`ALTER TABLE executors ADD COLUMN hand_backs ${type} NOT NULL DEFAULT 0`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE executors DROP COLUMN hand_backs');
  }
}

function isSqlite(queryRunner: QueryRunner): boolean {
  const type = queryRunner.connection.options.type;
  return type === 'better-sqlite3' || type === 'sqlite';
}
