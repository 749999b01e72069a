import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { TEST_DATABASES, useTestDatabase } from '../../../../test/support/databases';
import { openDatabase } from '../data-source';
import { readClusterSecret } from './read-cluster-secret';

describe.each(TEST_DATABASES)('cluster secrets on %s', (kind) => {
  const db = useTestDatabase(kind);
  const others: DataSource[] = [];
  beforeEach(() => db.clear());
  afterEach(async () => {
    for (const other of others.splice(0)) await other.destroy();
  });

  it('made by the first process that asks, then the same for every process; each name its own', async () => {
    const first = await readClusterSecret(db.dataSource.manager, 'metrics-tenant-label', 1);
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(await readClusterSecret(db.dataSource.manager, 'metrics-tenant-label', 2)).toBe(first);
    expect(await readClusterSecret(db.dataSource.manager, 'another', 3)).not.toBe(first);
  });

  it('processes asking at the same moment, before any made it, all get the one kept', async () => {
    // MariaDB: one data source a process (its own pool), as engines and consoles have; SQLite: one process.
    const sources = kind === 'mysql' ? [db.dataSource, ...(await Promise.all([1, 2, 3].map(() => openDatabase(db.url))))] : [db.dataSource];
    others.push(...sources.slice(1));
    const secrets = await Promise.all(sources.flatMap((ds) => [1, 2, 3].map(() => readClusterSecret(ds.manager, 'metrics-tenant-label', 1))));
    expect(new Set(secrets).size).toBe(1);
    expect(await db.dataSource.query('SELECT COUNT(*) AS n FROM cluster_secrets')).toEqual([{ n: 1 }]);
  });
});
