import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TEST_DATABASES, openTestDatabase, testMysqlServerUrl } from './databases';

describe('test database helper', () => {
  it('the worker sees the server chosen by global setup (or a loud reason why not)', () => {
    if (process.env.BATON_SKIP_MYSQL === '1') {
      expect(() => testMysqlServerUrl()).toThrow(/BATON_SKIP_MYSQL=1/);
    } else {
      expect(testMysqlServerUrl()).toMatch(/^mysql:\/\//);
    }
  });

  it.each(TEST_DATABASES)('%s: each database is fresh, migrated, and gone after close', async (kind) => {
    const a = await openTestDatabase(kind);
    const b = await openTestDatabase(kind);
    try {
      expect(a.url).not.toBe(b.url);
      await a.dataSource.query(`INSERT INTO engine_groups (name, description, created_at) VALUES ('g1', '', 1)`);
      expect(await a.dataSource.query('SELECT name FROM engine_groups')).toHaveLength(1);
      expect(await b.dataSource.query('SELECT name FROM engine_groups')).toHaveLength(0);
      await a.clear();
      expect(await a.dataSource.query('SELECT name FROM engine_groups')).toHaveLength(0);
    } finally {
      await a.close();
      await b.close();
    }
    if (kind === 'sqlite') {
      expect(existsSync(a.url.slice('sqlite:'.length))).toBe(false);
    } else {
      const probe = await openTestDatabase('mysql', { migrate: false });
      try {
        const name = new URL(a.url).pathname.slice(1);
        const rows = await probe.dataSource.query('SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', [name]);
        expect(rows).toHaveLength(0);
      } finally {
        await probe.close();
      }
    }
  });
});
