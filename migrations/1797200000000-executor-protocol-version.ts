import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `executors.protocol_version` INT NOT NULL DEFAULT 1: the executor protocol an executor speaks,
 * from its heartbeat (`protocolVersion`; absent: 1). Engines send a run ahead of its instant
 * (`startInMs`) only to executors of version 2 or later, which hold it until then; an older one
 * would start it at once. Existing rows are version 1 until their next heartbeat says otherwise.
 */
export class ExecutorProtocolVersion1797200000000 implements MigrationInterface {
  name = 'ExecutorProtocolVersion1797200000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Plain ALTER TABLE … ADD COLUMN (see 1796630000000-single-sign-on.ts for why not addColumn);
    // INTEGER is SQLite's name of what TypeORM maps `int` to there.
    const type = isSqlite(queryRunner) ? 'INTEGER' : 'INT';
    await queryRunner.query(`ALTER TABLE executors ADD COLUMN protocol_version ${type} NOT NULL DEFAULT 1`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE executors DROP COLUMN protocol_version');
  }
}

function isSqlite(queryRunner: QueryRunner): boolean {
  const type = queryRunner.connection.options.type;
  return type === 'better-sqlite3' || type === 'sqlite';
}
