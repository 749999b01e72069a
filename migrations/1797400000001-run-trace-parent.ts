import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `runs.trace_parent` VARCHAR(55) NULL: the W3C `traceparent` of the span that made the run (the
 * console request or trigger, the planner's fire, the parent run's outcome), so every attempt's
 * claim, dispatch, handler and outcome spans join one trace, whichever engine or process makes
 * them. NULL when tracing is off (the default): no row needs a value, no index holds it.
 */
export class RunTraceParent1797400000001 implements MigrationInterface {
  name = 'RunTraceParent1797400000001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Plain ALTER TABLE … ADD COLUMN (see 1796630000000-single-sign-on.ts for why not addColumn).
    await queryRunner.query('ALTER TABLE runs ADD COLUMN trace_parent VARCHAR(55) NULL');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE runs DROP COLUMN trace_parent');
  }
}
