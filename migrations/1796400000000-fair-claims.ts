import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * Fair shares of engine capacity between tenants (issue 20 item 1).
 *
 * 1. `tenants.claim_share` INT NOT NULL DEFAULT 1: the tenant's weight when the engines divide
 *    the runs they hold among the tenants with due work (operator-set; every tenant equal by default).
 * 2. `ix_runs_claim` becomes (engine_group, state, tenant_id, due_at, priority DESC): the claim
 *    reads one range per tenant, so a tenant's backlog is never walked to reach another tenant's
 *    due runs (libs/persistence/src/engine-queries/runs/claim-due-runs.ts). The console's reads of a
 *    tenant's live runs (engine_group, state IN live states, tenant_id) use its prefix too.
 *    One raw statement for the DESC key part, valid on MySQL, MariaDB and SQLite alike.
 */
export class FairClaims1796400000000 implements MigrationInterface {
  name = 'FairClaims1796400000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn('tenants', new TableColumn({ name: 'claim_share', type: 'integer', default: 1 }));
    await queryRunner.query(dropClaimIndex(queryRunner));
    await queryRunner.query('CREATE INDEX ix_runs_claim ON runs (engine_group, state, tenant_id, due_at, priority DESC)');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(dropClaimIndex(queryRunner));
    await queryRunner.query('CREATE INDEX ix_runs_claim ON runs (engine_group, state, due_at, priority DESC)');
    await queryRunner.dropColumn('tenants', 'claim_share');
  }
}

/** TypeORM cannot read back an index with a DESC part, so `dropIndex` does not find it: the dialect's own statement. */
function dropClaimIndex(queryRunner: QueryRunner): string {
  const type = queryRunner.connection.options.type;
  return type === 'better-sqlite3' || type === 'sqlite' ? 'DROP INDEX ix_runs_claim' : 'DROP INDEX ix_runs_claim ON runs';
}
