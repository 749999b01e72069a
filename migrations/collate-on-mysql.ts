import type { QueryRunner } from 'typeorm';

/**
 * Gives columns that hold what a tenant names `collation` on MySQL: each statement of `alters`,
 * given `CHARACTER SET utf8mb4 COLLATE <collation>` for its column types, is run in turn. Nothing
 * on SQLite, whose TEXT compares bytes. Shared by the migrations that made keys, event names and
 * single sign-on subjects compare case as given (utf8mb4_bin) where the tables' utf8mb4_unicode_ci
 * folded it.
 */
export async function collateOnMysql(queryRunner: QueryRunner, collation: string, alters: (as: string) => string[]): Promise<void> {
  const type = queryRunner.connection.options.type;
  if (type === 'better-sqlite3' || type === 'sqlite') return;
  for (const sql of alters(`CHARACTER SET utf8mb4 COLLATE ${collation}`)) await queryRunner.query(sql);
}
