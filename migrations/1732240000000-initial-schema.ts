import { MigrationInterface, QueryRunner, Table, TableColumnOptions, TableIndexOptions } from 'typeorm';

/**
 * The initial Baton schema: the 13 tables of libs/persistence/src/entities, built with the
 * QueryRunner Table API so that the same migration makes the schema on MySQL/MariaDB
 * (cluster) and on SQLite (embedded). The schema-drift test checks that the result is
 * exactly what the entities describe, on both databases.
 *
 * Conventions (see entities/columns.ts): instants are BIGINT epoch ms, JSON is TEXT,
 * booleans are TINYINT on MySQL and BOOLEAN on SQLite. There are no foreign keys: the entities
 * declare none, and the hot tables (runs, alarms) stay free of FK lock traffic.
 *
 * The helpers below belong to this migration only: a migration is frozen once released,
 * so later migrations must not share them.
 */
export class InitialSchema1732240000000 implements MigrationInterface {
  name = 'InitialSchema1732240000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const sqlite = isSqlite(queryRunner);
    if (!sqlite) await requireUtf8mb4(queryRunner);

    // `integer`, not `int`: MySQL stores it as INT, and SQLite keeps `integer`, which is what
    // TypeORM's SQLite driver expects for an entity's `int` column.
    const int = (name: string, more: Partial<TableColumnOptions> = {}): TableColumnOptions => ({ name, type: 'integer', ...more });
    const bigint = (name: string, more: Partial<TableColumnOptions> = {}): TableColumnOptions => ({ name, type: 'bigint', ...more });
    const varchar = (name: string, length: number, more: Partial<TableColumnOptions> = {}): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: String(length),
      ...more,
    });
    const text = (name: string, more: Partial<TableColumnOptions> = {}): TableColumnOptions => ({ name, type: 'text', ...more });
    const nullable = { isNullable: true } as const;
    const intId = int('id', { isPrimary: true, isGenerated: true, generationStrategy: 'increment' });
    // The two details that are not portable, decided here in one place:
    // - SQLite allows AUTOINCREMENT only on an `INTEGER PRIMARY KEY` (the rowid alias, 64-bit like
    //   BIGINT), so a generated BIGINT key is declared INTEGER there (data-source.ts aligns the
    //   SQLite entity metadata with this: alignEntityMetadata);
    // - an entity `boolean` is what TypeORM calls TINYINT on MySQL (plain, no display width: the
    //   `boolean` keyword would make MariaDB's TINYINT(1), which TypeORM reads as a different
    //   type), and `boolean` on SQLite.
    const nonPortable = sqlite ? { bigId: 'integer', boolean: 'boolean' } : { bigId: 'bigint', boolean: 'tinyint' };
    const bigId: TableColumnOptions = {
      name: 'id',
      type: nonPortable.bigId,
      isPrimary: true,
      isGenerated: true,
      generationStrategy: 'increment',
    };
    const boolean = (name: string, more: Partial<TableColumnOptions> = {}): TableColumnOptions => ({
      name,
      type: nonPortable.boolean,
      ...more,
    });
    const index = (name: string, columnNames: string[], isUnique = false): TableIndexOptions => ({ name, columnNames, isUnique });

    await queryRunner.createTable(
      new Table({
        name: 'tenants',
        columns: [
          varchar('id', 64, { isPrimary: true }),
          varchar('name', 200),
          varchar('engine_group', 64),
          varchar('executor_secret', 128),
          int('rate_per_sec', { default: '1000' }),
          int('burst', { default: '2000' }),
          bigint('created_at'),
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'engine_groups',
        columns: [varchar('name', 64, { isPrimary: true }), varchar('description', 500, { default: "''" }), bigint('created_at')],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'engine_nodes',
        columns: [
          varchar('id', 64, { isPrimary: true }),
          varchar('groups', 1000),
          varchar('host', 255),
          int('pid'),
          varchar('url', 500),
          int('slots'),
          bigint('started_at'),
          bigint('heartbeat_at'),
          varchar('state', 16),
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'users',
        columns: [
          intId,
          varchar('tenant_id', 64, nullable),
          varchar('username', 100),
          varchar('password_hash', 100),
          varchar('role', 16),
          bigint('created_at'),
        ],
        indices: [index('uq_users_username', ['username'], true)],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'sessions',
        columns: [intId, int('user_id'), varchar('token_hash', 64), bigint('created_at'), bigint('expires_at')],
        indices: [index('uq_sessions_token_hash', ['token_hash'], true)],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'api_keys',
        columns: [
          intId,
          varchar('tenant_id', 64),
          varchar('name', 100),
          varchar('prefix', 16),
          varchar('key_hash', 64),
          varchar('role', 16),
          bigint('created_at'),
          bigint('revoked_at', nullable),
        ],
        indices: [index('uq_api_keys_key_hash', ['key_hash'], true), index('ix_api_keys_tenant', ['tenant_id'])],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'executors',
        columns: [
          intId,
          varchar('tenant_id', 64),
          varchar('app', 100),
          varchar('url', 500),
          int('capacity'),
          int('in_flight', { default: '0' }),
          varchar('state', 8),
          bigint('registered_at'),
          bigint('heartbeat_at'),
        ],
        indices: [index('uq_executors_tenant_app_url', ['tenant_id', 'app', 'url'], true)],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'calendars',
        columns: [intId, varchar('tenant_id', 64), varchar('name', 100), varchar('time_zone', 64), text('dates'), bigint('created_at')],
        indices: [index('uq_calendars_tenant_name', ['tenant_id', 'name'], true)],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'tasks',
        columns: [
          intId,
          varchar('tenant_id', 64),
          varchar('engine_group', 64),
          varchar('name', 100),
          varchar('group_name', 100, { default: "'default'" }),
          varchar('executor_app', 100),
          varchar('handler', 100),
          text('params'),
          varchar('trigger_kind', 16),
          varchar('cron_expression', 200, nullable),
          varchar('time_zone', 64, nullable),
          bigint('interval_ms', nullable),
          bigint('once_at', nullable),
          bigint('start_at', nullable),
          bigint('end_at', nullable),
          int('max_fires', nullable),
          int('fire_count', { default: '0' }),
          varchar('misfire_policy', 16),
          int('misfire_threshold_ms'),
          int('priority', { default: '0' }),
          varchar('concurrency_policy', 16),
          int('timeout_ms'),
          int('start_deadline_ms'),
          int('retry_max_attempts'),
          int('retry_backoff_base_ms'),
          int('retry_backoff_max_ms'),
          int('retry_jitter_permille'),
          int('calendar_id', nullable),
          text('alarm_types'),
          int('alarm_silence_ms'),
          boolean('paused', { default: '0' }),
          bigint('next_fire_at', nullable),
          bigint('created_at'),
          bigint('updated_at'),
          int('version', { default: '1' }),
        ],
        indices: [
          index('uq_tasks_tenant_name', ['tenant_id', 'name'], true),
          // The planner's claim: tasks of engine group G, not paused, next fire due.
          index('ix_tasks_plan', ['engine_group', 'paused', 'next_fire_at']),
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'task_dependencies',
        columns: [
          intId,
          varchar('tenant_id', 64),
          int('parent_task_id'),
          int('child_task_id'),
          varchar('condition', 16),
          bigint('created_at'),
        ],
        indices: [
          index('uq_task_dependencies_edge', ['parent_task_id', 'child_task_id'], true),
          index('ix_task_dependencies_child', ['child_task_id']),
          index('ix_task_dependencies_tenant', ['tenant_id']),
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'runs',
        columns: [
          bigId,
          varchar('tenant_id', 64),
          int('task_id'),
          varchar('engine_group', 64),
          varchar('state', 16),
          varchar('cause', 16),
          varchar('fire_key', 64),
          bigint('flow_id', nullable),
          bigint('parent_run_id', nullable),
          int('attempt', { default: '1' }),
          int('priority', { default: '0' }),
          text('params'),
          bigint('scheduled_at'),
          bigint('due_at'),
          varchar('claimed_by', 64, nullable),
          bigint('lease_until', nullable),
          int('executor_id', nullable),
          bigint('dispatched_at', nullable),
          bigint('accepted_at', nullable),
          bigint('started_at', nullable),
          bigint('finished_at', nullable),
          text('result', nullable),
          text('error', nullable),
          int('progress', nullable),
          bigint('created_at'),
          bigint('updated_at'),
        ],
        indices: [
          // No duplicate fire, whatever the engines do: (task, scheduled time) via the fire key.
          index('uq_runs_task_fire_key', ['task_id', 'fire_key'], true),
          // The claim: due runs of engine group G in state S, oldest due first.
          index('ix_runs_claim', ['engine_group', 'state', 'due_at']),
          index('ix_runs_tenant_time', ['tenant_id', 'scheduled_at', 'id']),
          index('ix_runs_task_time', ['task_id', 'scheduled_at']),
          index('ix_runs_flow', ['flow_id']),
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'run_logs',
        columns: [
          bigId,
          varchar('tenant_id', 64),
          bigint('run_id'),
          int('attempt'),
          bigint('at'),
          varchar('level', 8),
          text('message'),
        ],
        indices: [index('ix_run_logs_run', ['run_id', 'id'])],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'alarms',
        columns: [
          bigId,
          varchar('tenant_id', 64),
          varchar('type', 32),
          varchar('severity', 8),
          int('task_id', nullable),
          bigint('run_id', nullable),
          int('executor_id', nullable),
          varchar('message', 1000),
          text('data', nullable),
          int('count', { default: '1' }),
          bigint('raised_at'),
          bigint('published_at', nullable),
          bigint('acked_at', nullable),
          varchar('acked_by', 100, nullable),
        ],
        indices: [
          index('ix_alarms_tenant_time', ['tenant_id', 'raised_at', 'id']),
          // The outbox relay's scan: unpublished alarms, oldest first.
          index('ix_alarms_outbox', ['published_at', 'id']),
        ],
      }),
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of [
      'alarms',
      'run_logs',
      'runs',
      'task_dependencies',
      'tasks',
      'calendars',
      'executors',
      'api_keys',
      'sessions',
      'users',
      'engine_nodes',
      'engine_groups',
      'tenants',
    ]) {
      await queryRunner.dropTable(table, true);
    }
  }
}

function isSqlite(queryRunner: QueryRunner): boolean {
  const type = queryRunner.connection.options.type;
  return type === 'better-sqlite3' || type === 'sqlite';
}

/**
 * MySQL only: the tables take the database's default character set, and everything Baton
 * stores (names, messages, params) must hold any Unicode text. A latin1 or 3-byte utf8
 * database would silently mangle it, so refuse to build the schema there.
 */
async function requireUtf8mb4(queryRunner: QueryRunner): Promise<void> {
  const rows: Array<{ charset: string }> = await queryRunner.query('SELECT @@character_set_database AS charset');
  const charset = rows[0]?.charset;
  if (charset !== 'utf8mb4') {
    throw new Error(
      `The database's default character set is ${charset}, not utf8mb4. ` +
        'Create it with: CREATE DATABASE <name> CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci',
    );
  }
}
