import { openDatabaseMigrated } from '@baton/persistence';

/** What a migration run did: the migrations it applied (in order) and how many the database has now. */
export interface MigrationRun {
  applied: string[];
  total: number;
}

/**
 * Runs the pending migrations on `url` (under the lock every process takes, so it is safe while
 * engines and consoles start): the ones this run applied — none when another process had — and
 * the number the database has.
 */
export async function migrateDatabase(url: string): Promise<MigrationRun> {
  const { dataSource, applied } = await openDatabaseMigrated(url);
  try {
    const [{ n }]: Array<{ n: number | string }> = await dataSource.query(`SELECT COUNT(*) AS n FROM ${dataSource.driver.escape('migrations')}`);
    return { applied, total: Number(n) };
  } finally {
    await dataSource.destroy();
  }
}

/** `applied 2:` and their names, one a line, then `up to date: 56 migrations` (the last line alone when nothing was pending). */
export function describeMigrationRun(run: MigrationRun): string {
  const upToDate = `up to date: ${run.total} migration${run.total === 1 ? '' : 's'}`;
  return run.applied.length === 0 ? upToDate : `applied ${run.applied.length}:\n  ${run.applied.join('\n  ')}\n${upToDate}`;
}
