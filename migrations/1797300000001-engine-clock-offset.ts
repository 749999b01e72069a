import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `engine_nodes.clock_offset_ms` INT NULL: the engine's clock offset from the database's (database −
 * engine, ms), measured at each heartbeat, for the operator's page (GET /api/operator/engine-nodes).
 * NULL until the node's first heartbeat after the upgrade.
 */
export class EngineClockOffset1797300000001 implements MigrationInterface {
  name = 'EngineClockOffset1797300000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Plain ALTER TABLE … ADD COLUMN (see 1796630000000-single-sign-on.ts); INTEGER is SQLite's name of `int`.
    const type = isSqlite(queryRunner) ? 'INTEGER' : 'INT';
    await queryRunner.query(`ALTER TABLE engine_nodes ADD COLUMN clock_offset_ms ${type} NULL`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE engine_nodes DROP COLUMN clock_offset_ms');
  }
}

function isSqlite(queryRunner: QueryRunner): boolean {
  const type = queryRunner.connection.options.type;
  return type === 'better-sqlite3' || type === 'sqlite';
}
