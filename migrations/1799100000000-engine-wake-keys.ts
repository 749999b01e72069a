import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `engine_nodes.wake_key` VARCHAR(64) NULL: a random key each engine makes at its start and
 * registers with its row. The console proves with it that a wake-up's run rows are its own
 * (POST /baton/wake carries the rows it just committed, so the engine need not read them back:
 * docs/BENCHMARKS.md, on demand); a tenant, which signs wake-ups too, never sees it. NULL for a
 * node registered before the upgrade: its wake-ups name run ids only.
 */
export class EngineWakeKeys1799100000000 implements MigrationInterface {
  name = 'EngineWakeKeys1799100000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Plain ALTER TABLE … ADD COLUMN (see 1796630000000-single-sign-on.ts for why not addColumn).
    await queryRunner.query('ALTER TABLE engine_nodes ADD COLUMN wake_key VARCHAR(64) NULL');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE engine_nodes DROP COLUMN wake_key');
  }
}
