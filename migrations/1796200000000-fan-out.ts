import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';

/**
 * Broadcast and sharding (issue 14 item 2):
 *
 * - `tasks.fan_out_mode` (SINGLE | BROADCAST | SHARDED, default SINGLE — every existing task),
 *   `tasks.fan_out_shards` (SHARDED: how many) and `tasks.fan_out_fail_when` (ANY_SHARD_FAILS |
 *   ALL_SHARDS_FAIL).
 * - `runs.shard_index`, `runs.shard_total`: a shard's place (cause SHARD, `parent_run_id` = its
 *   fan-out run); a fan-out run's `shard_total` once it has written its shards.
 * - `runs.pinned_executor_id`: a broadcast shard runs on that executor or not at all.
 * - `ix_runs_parent (parent_run_id, state)`: a fan-out run reads its shards when one ends, and
 *   the console lists a run's children; neither had an index on parent_run_id before.
 */
export class FanOut1796200000000 implements MigrationInterface {
  name = 'FanOut1796200000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn('tasks', new TableColumn({ name: 'fan_out_mode', type: 'varchar', length: '16', default: "'SINGLE'" }));
    await queryRunner.addColumn('tasks', new TableColumn({ name: 'fan_out_shards', type: 'integer', isNullable: true }));
    await queryRunner.addColumn('tasks', new TableColumn({ name: 'fan_out_fail_when', type: 'varchar', length: '16', default: "'ANY_SHARD_FAILS'" }));
    // Plain ALTER TABLE on runs, as in 1796000000000: no SQLite table rebuild (ix_runs_claim's DESC part).
    await queryRunner.query('ALTER TABLE runs ADD COLUMN shard_index INTEGER NULL');
    await queryRunner.query('ALTER TABLE runs ADD COLUMN shard_total INTEGER NULL');
    await queryRunner.query('ALTER TABLE runs ADD COLUMN pinned_executor_id INTEGER NULL');
    await queryRunner.createIndex('runs', new TableIndex({ name: 'ix_runs_parent', columnNames: ['parent_run_id', 'state'] }));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('runs', 'ix_runs_parent');
    await queryRunner.query('ALTER TABLE runs DROP COLUMN pinned_executor_id');
    await queryRunner.query('ALTER TABLE runs DROP COLUMN shard_total');
    await queryRunner.query('ALTER TABLE runs DROP COLUMN shard_index');
    await queryRunner.dropColumn('tasks', 'fan_out_fail_when');
    await queryRunner.dropColumn('tasks', 'fan_out_shards');
    await queryRunner.dropColumn('tasks', 'fan_out_mode');
  }
}
