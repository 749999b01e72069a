import { DataSource } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { createEmptyTestDatabase } from '../../../test/support/databases';
import { databaseKind, dataSourceOptions, IDLE_TRANSACTION_TIMEOUT_S, openDatabase, resolveDataSourceOptions } from './data-source';

describe('database URLs', () => {
  it('names the kind, and refuses anything else', () => {
    expect(databaseKind('mysql://u:p@h:3306/baton')).toBe('mysql');
    expect(databaseKind('mariadb://u:p@h:3306/baton')).toBe('mysql');
    expect(databaseKind('sqlite:data/baton.sqlite')).toBe('sqlite');
    expect(() => databaseKind('postgres://h/db')).toThrow(/mysql:\/\/ or sqlite:/);
  });

  it('never synchronizes; mariadb:// picks TypeORM type mariadb', () => {
    expect(dataSourceOptions('sqlite::memory:')).toMatchObject({ type: 'better-sqlite3', synchronize: false });
    expect(dataSourceOptions('mysql://u:p@h/db')).toMatchObject({ type: 'mysql', synchronize: false, url: 'mysql://u:p@h/db' });
    expect(dataSourceOptions('mariadb://u:p@h/db')).toMatchObject({ type: 'mariadb', url: 'mysql://u:p@h/db' });
  });
});

describe('openDatabase on mysql', () => {
  it('detects MariaDB behind a mysql:// URL', async () => {
    const db = await createEmptyTestDatabase('mysql');
    try {
      const options = await resolveDataSourceOptions(db.url);
      const probe = await openDatabase(db.url);
      try {
        const [{ v }] = await probe.query('SELECT VERSION() AS v');
        expect(options.type).toBe(/mariadb/i.test(v) ? 'mariadb' : 'mysql');
      } finally {
        await probe.destroy();
      }
    } finally {
      await db.drop();
    }
  });

  it('MariaDB: every session of the pool rolls back a transaction left idle (a frozen or cut-off client), the first one too', async () => {
    const db = await createEmptyTestDatabase('mysql');
    const ds = await openDatabase(db.url);
    const runners = [ds.createQueryRunner(), ds.createQueryRunner(), ds.createQueryRunner()];
    try {
      // Three sessions at once: the one opened while initialising and two the pool opens now.
      const values = await Promise.all(runners.map(async (r) => (await r.query('SELECT @@session.idle_transaction_timeout AS t, CONNECTION_ID() AS id'))[0]));
      expect(new Set(values.map((v) => Number(v.id))).size).toBe(3);
      expect(values.map((v) => Number(v.t))).toEqual([IDLE_TRANSACTION_TIMEOUT_S, IDLE_TRANSACTION_TIMEOUT_S, IDLE_TRANSACTION_TIMEOUT_S]);
    } finally {
      await Promise.all(runners.map((r) => r.release()));
      await ds.destroy();
      await db.drop();
    }
  });

  it('engines starting together on an empty database migrate it once, without failing', async () => {
    const db = await createEmptyTestDatabase('mysql');
    try {
      const opened = await Promise.all([openDatabase(db.url), openDatabase(db.url), openDatabase(db.url)]);
      try {
        const rows = await opened[0].query('SELECT name FROM migrations');
        expect(rows).toHaveLength(opened[0].migrations.length);
        for (const ds of opened) expect(await ds.showMigrations()).toBe(false);
      } finally {
        await Promise.all(opened.map((ds) => ds.destroy()));
      }
    } finally {
      await db.drop();
    }
  });

  it('refuses to build the schema in a database that is not utf8mb4', async () => {
    const db = await createEmptyTestDatabase('mysql');
    try {
      const plain = new DataSource({ ...dataSourceOptions(db.url), entities: [], migrations: [] });
      await plain.initialize(); // no migrations
      try {
        await plain.query('ALTER DATABASE CHARACTER SET latin1 COLLATE latin1_swedish_ci');
      } finally {
        await plain.destroy();
      }
      await expect(openDatabase(db.url)).rejects.toThrow(/not utf8mb4/);
    } finally {
      await db.drop();
    }
  });
});

describe('openDatabase on sqlite', () => {
  it('keeps data across a reopen and migrates only once', async () => {
    const db = await createEmptyTestDatabase('sqlite');
    try {
      const first = await openDatabase(db.url);
      await first.query(`INSERT INTO engine_groups (name, description, created_at) VALUES ('g', '', 1)`);
      await first.destroy();
      const second = await openDatabase(db.url);
      try {
        expect(await second.query('SELECT name FROM engine_groups')).toEqual([{ name: 'g' }]);
        expect(await second.query('SELECT name FROM migrations')).toHaveLength(second.migrations.length);
      } finally {
        await second.destroy();
      }
    } finally {
      await db.drop();
    }
  });
});
