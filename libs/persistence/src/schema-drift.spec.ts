import type { DataSource } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../../../test/support/databases';

/**
 * The migrations are the only way the schema is made (no synchronize). This proves they make
 * exactly what the entities describe, on both databases: after running them on an empty
 * database, TypeORM's schema builder must find nothing to change. An entity edited without a
 * migration (new column, changed type or length, new index…) makes this test fail and prints
 * the SQL the missing migration needs.
 */
async function pendingSchemaChanges(dataSource: DataSource): Promise<string[]> {
  const sql = await dataSource.driver.createSchemaBuilder().log();
  return sql.upQueries.map((q) => q.query);
}

describe.each(TEST_DATABASES)('schema drift on %s', (kind) => {
  const db = useTestDatabase(kind);

  it('the migrations build exactly the schema of the entities', async () => {
    const pending = await pendingSchemaChanges(db.dataSource);
    expect(
      pending,
      `Entities and migrations differ on ${kind}. Write a migration in migrations/ (Table API) that does:\n  ${pending.join(';\n  ')}\n`,
    ).toEqual([]);
  });

  it('every entity has its table and every migration ran', async () => {
    const queryRunner = db.dataSource.createQueryRunner();
    try {
      for (const entity of db.dataSource.entityMetadatas) {
        expect(await queryRunner.hasTable(entity.tableName), entity.tableName).toBe(true);
      }
    } finally {
      await queryRunner.release();
    }
    expect(await db.dataSource.showMigrations()).toBe(false); // false: nothing pending
  });

  // It damages the schema on purpose: on a database of its own, so the tests above hold in any order.
  describe('on a database of its own', () => {
    const scratch = useTestDatabase(kind);

    it('the check itself catches a difference (a column the migrations did not make)', async () => {
      const queryRunner = scratch.dataSource.createQueryRunner();
      try {
        await queryRunner.dropColumn('runs', 'progress');
      } finally {
        await queryRunner.release();
      }
      const pending = await pendingSchemaChanges(scratch.dataSource);
      expect(pending.join('\n')).toMatch(/progress/);
    });
  });
});
