import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * An executor's queue limit from its heartbeat (issue 11 item 1): `executors.queue_limit` INT
 * NOT NULL DEFAULT 0. With it, an engine that has not heard a 202 from an executor yet knows its
 * whole room (workers + queue places − in flight) instead of its workers alone: at the start of
 * a burst every engine used to hold back all but `capacity` runs per executor for a round trip.
 * 0, the value of existing rows and of executors that do not send it, means workers only.
 */
export class ExecutorQueueLimit1795800000000 implements MigrationInterface {
  name = 'ExecutorQueueLimit1795800000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn('executors', new TableColumn({ name: 'queue_limit', type: 'integer', isNullable: false, default: 0 }));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('executors', 'queue_limit');
  }
}
