import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';

/**
 * The alarm pipeline (issue 4: outbox → ActiveMQ → console gateway → socket.io).
 *
 * Column on `alarms`:
 * - `uid` VARCHAR(64) NULL, unique (`ux_alarms_uid`): the alarm's stable id — the `id` of its
 *   message on the topic and at the browser, the same on every delivery, so consumers drop
 *   repeats by it. The engine makes a UUID when it writes the row; a business alarm from the
 *   executor SDK brings its own (the unique key makes a repeated callback write it once). Rows
 *   that exist already get one here. Nullable only because rows written before this column had
 *   none (the relay then uses `row-<id>`).
 *
 * Indexes on `alarms`:
 * - `ix_alarms_tenant_outbox` (tenant_id, published_at, id): the relay's claim reads one
 *   tenant's unpublished alarms oldest first; without it that is either a walk over the tenant's
 *   whole alarm history (ix_alarms_tenant_time) or over every tenant's backlog (ix_alarms_outbox).
 * - `ix_alarms_collapse` (task_id, type, raised_at): the silence window looks up "the latest
 *   alarm of this task and type since t" on every alarm about a task.
 *
 * `alarms` has only plain indexes, so TypeORM's SQLite table rebuild behind addColumn keeps them
 * all (unlike `runs`, whose DESC key part it cannot read back — see 1795400000000).
 */
export class AlarmOutboxRelay1795500000000 implements MigrationInterface {
  name = 'AlarmOutboxRelay1795500000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn('alarms', new TableColumn({ name: 'uid', type: 'varchar', length: '64', isNullable: true }));
    // Existing rows: a random UUID-shaped id each, in one statement per dialect.
    if (isSqlite(queryRunner)) {
      await queryRunner.query(
        `UPDATE alarms SET uid = lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' ||
           substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))) WHERE uid IS NULL`,
      );
    } else {
      await queryRunner.query('UPDATE alarms SET uid = UUID() WHERE uid IS NULL');
    }
    await queryRunner.createIndices('alarms', [
      new TableIndex({ name: 'ux_alarms_uid', columnNames: ['uid'], isUnique: true }),
      new TableIndex({ name: 'ix_alarms_tenant_outbox', columnNames: ['tenant_id', 'published_at', 'id'] }),
      new TableIndex({ name: 'ix_alarms_collapse', columnNames: ['task_id', 'type', 'raised_at'] }),
    ]);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const name of ['ix_alarms_collapse', 'ix_alarms_tenant_outbox', 'ux_alarms_uid']) await queryRunner.dropIndex('alarms', name);
    await queryRunner.dropColumn('alarms', 'uid');
  }
}

function isSqlite(queryRunner: QueryRunner): boolean {
  const type = queryRunner.connection.options.type;
  return type === 'better-sqlite3' || type === 'sqlite';
}
