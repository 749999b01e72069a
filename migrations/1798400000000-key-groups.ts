import { MigrationInterface, QueryRunner, Table, TableColumnOptions, TableIndex } from 'typeorm';

/**
 * Key groups (issue 42, part 2): tasks of a tenant naming one `group` in their `concurrency` or
 * `rateLimit` share its keys. A key is no longer (tenant, task, value) but (tenant, scope, value),
 * the scope being `t:<taskId>` (a task's own keys, as before) or `g:<group>` (domain keyScope):
 * - `runs.key_scope` VARCHAR(66) NULL: the scope whose place the run holds (set with run_key when a
 *   claim admits or holds it; NULL for a run bounded by rate alone, which holds no place).
 *   `ix_runs_key` becomes (state, tenant_id, key_scope, run_key): a key's going runs, its oldest
 *   held runs and the keys with held runs are the same short ranges as before, now of the group's
 *   runs across its tasks. The live keyed runs are given their task's scope — through the index's
 *   state ranges, not a scan of the runs' history, whose scope no query reads.
 * - `run_keys`' primary key becomes (tenant_id, key_scope, key_value): the row lock is the
 *   group's key's mutex and the row its one token bucket. `task_id` becomes `rules_task_id`
 *   (NULL: none yet): the task whose bound last wrote the row's bucket or throttle period, whose
 *   rules the retention purge reads to tell a row at rest (a group's row has no one task). The
 *   table is made anew and its rows copied, each its task's scope: a primary key cannot change
 *   in place on SQLite.
 *
 * `down` keeps the task scopes' rows and drops the groups' (a key row holds nothing a key's next
 * run could not make again); runs held or going in a group are counted per task again.
 */
export class KeyGroups1798400000000 implements MigrationInterface {
  name = 'KeyGroups1798400000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const sqlite = isSqlite(queryRunner);
    const scopeOfTask = sqlite ? "'t:' || task_id" : "CONCAT('t:', task_id)";
    // Plain ALTER TABLE … ADD COLUMN (see 1796630000000-single-sign-on.ts for why not addColumn).
    await queryRunner.query('ALTER TABLE runs ADD COLUMN key_scope VARCHAR(66) NULL');
    await queryRunner.query(`UPDATE runs SET key_scope = ${scopeOfTask} WHERE state IN (${LIVE_STATES}) AND run_key IS NOT NULL`);
    await queryRunner.dropIndex('runs', 'ix_runs_key');
    await queryRunner.createIndex('runs', new TableIndex({ name: 'ix_runs_key', columnNames: ['state', 'tenant_id', 'key_scope', 'run_key'] }));

    await queryRunner.createTable(keyTable('run_keys_next', sqlite, { name: 'key_scope', type: 'varchar', length: '66', isPrimary: true }, { name: 'rules_task_id', type: int(sqlite), isNullable: true }));
    await queryRunner.query(
      `INSERT INTO run_keys_next (tenant_id, key_scope, key_value, rules_task_id, ${STATE_COLUMNS})
       SELECT tenant_id, ${scopeOfTask}, key_value, task_id, ${STATE_COLUMNS} FROM run_keys`,
    );
    await this.replaceKeyTable(queryRunner);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    const sqlite = isSqlite(queryRunner);
    await queryRunner.createTable(keyTable('run_keys_next', sqlite, { name: 'task_id', type: int(sqlite), isPrimary: true }));
    await queryRunner.query(
      `INSERT INTO run_keys_next (tenant_id, task_id, key_value, ${STATE_COLUMNS})
       SELECT tenant_id, CAST(SUBSTR(key_scope, 3) AS ${sqlite ? 'INTEGER' : 'UNSIGNED'}), key_value, ${STATE_COLUMNS} FROM run_keys WHERE key_scope LIKE 't:%'`,
    );
    await this.replaceKeyTable(queryRunner);

    await queryRunner.dropIndex('runs', 'ix_runs_key');
    await queryRunner.query('ALTER TABLE runs DROP COLUMN key_scope');
    await queryRunner.createIndex('runs', new TableIndex({ name: 'ix_runs_key', columnNames: ['state', 'tenant_id', 'task_id', 'run_key'] }));
  }

  /** run_keys_next, filled, becomes run_keys, with the purge's index (SQLite's index names are the database's: the old table's goes first). */
  private async replaceKeyTable(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE run_keys');
    await queryRunner.query('ALTER TABLE run_keys_next RENAME TO run_keys');
    await queryRunner.createIndex('run_keys', new TableIndex({ name: 'ix_run_keys_rest', columnNames: ['tenant_id', 'used_at'] }));
  }
}

/** The states of runs that hold or wait for a place of their key (domain KEY_GOING_STATES and HELD), as they were when this migration was written. */
const LIVE_STATES = "'PENDING', 'CLAIMED', 'DISPATCHED', 'ACCEPTED', 'RETRY_WAIT', 'HELD'";

/** What a key's row stores beside its identity (migrations 1797800000000, 1798100000000, 1798300000000), copied as it is. */
const STATE_COLUMNS = 'tokens_milli, refilled_at, throttle_started_at, throttle_count, throttle_trailing_at, used_at';

/** The run_keys table with `identity` between tenant_id and key_value in its primary key, and `extra` columns. */
function keyTable(name: string, sqlite: boolean, identity: TableColumnOptions, ...extra: TableColumnOptions[]): Table {
  return new Table({
    name,
    columns: [
      { name: 'tenant_id', type: 'varchar', length: '64', isPrimary: true },
      identity,
      { name: 'key_value', type: 'varchar', length: '160', isPrimary: true },
      ...extra,
      { name: 'tokens_milli', type: int(sqlite), isNullable: true },
      { name: 'refilled_at', type: 'bigint', isNullable: true },
      { name: 'throttle_started_at', type: 'bigint', isNullable: true },
      { name: 'throttle_count', type: int(sqlite), isNullable: true },
      { name: 'throttle_trailing_at', type: 'bigint', isNullable: true },
      { name: 'used_at', type: 'bigint', isNullable: true },
    ],
  });
}

/** SQLite names the entities' 'int' INTEGER: the same word here, so the schemas compare equal. */
function int(sqlite: boolean): string {
  return sqlite ? 'integer' : 'int';
}

function isSqlite(queryRunner: QueryRunner): boolean {
  const type = queryRunner.connection.options.type;
  return type === 'better-sqlite3' || type === 'sqlite';
}
