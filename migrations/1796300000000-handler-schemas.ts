import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Handler params schemas (issue 14 item 1): `executors.handler_schemas` TEXT NULL — the JSON
 * schemas of its handlers' params that an executor's last heartbeat declared, by handler name,
 * so the console shows them in the task editor and checks a task's params on save. NULL: none
 * declared (every executor until its next heartbeat, and executors of older SDKs).
 */
export class HandlerSchemas1796300000000 implements MigrationInterface {
  name = 'HandlerSchemas1796300000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE executors ADD COLUMN handler_schemas TEXT NULL');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE executors DROP COLUMN handler_schemas');
  }
}
