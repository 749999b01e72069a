import { openDatabase } from '@baton/persistence';

/**
 * Runs the pending migrations on `url` (under the lock every process takes, so it is safe while
 * engines and consoles start) and returns the names of every migration applied so far.
 */
export async function migrateDatabase(url: string): Promise<string[]> {
  const dataSource = await openDatabase(url);
  try {
    const rows: Array<{ name: string }> = await dataSource.query(`SELECT name FROM ${dataSource.driver.escape('migrations')} ORDER BY id`);
    return rows.map((row) => row.name);
  } finally {
    await dataSource.destroy();
  }
}
