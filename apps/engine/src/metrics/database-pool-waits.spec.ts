import { describe, expect, it } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { DatabasePoolWaits } from './database-pool-waits';
import { EngineMetrics } from './engine-metrics';

describe.each(TEST_DATABASES)('DatabasePoolWaits on %s', (kind) => {
  const db = useTestDatabase(kind, { migrate: false });

  it('counts the statements that queued for a connection (MariaDB: 30 at once on its 20), none once stopped; SQLite has no pool', async () => {
    const metrics = new EngineMetrics({ defaultMetrics: false });
    const waits = new DatabasePoolWaits(db.dataSource, metrics);
    const waited = async () => (await metrics.dbPoolWaits.get()).values[0]?.value ?? 0;
    // Each holds its connection for 50 ms: the 21st and later find none free (MariaDB's pool of 20).
    const burst = () => Promise.all(Array.from({ length: 30 }, () => db.dataSource.query(kind === 'mysql' ? 'SELECT SLEEP(0.05)' : 'SELECT 1')));
    waits.onModuleInit();
    await burst();
    if (kind === 'mysql') expect(await waited()).toBeGreaterThanOrEqual(10);
    else expect(await waited()).toBe(0);
    const counted = await waited();
    waits.onModuleDestroy();
    await burst();
    expect(await waited()).toBe(counted);
  });
});
