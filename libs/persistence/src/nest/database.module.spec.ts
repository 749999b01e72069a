import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { openDatabase } from '../data-source';
import { DatabaseModule } from './database.module';

@Injectable()
class NeedsDb {
  constructor(readonly dataSource: DataSource) {}
}

@Module({ providers: [NeedsDb] })
class FeatureModule {}

describe('DatabaseModule', () => {
  it('opens the database from a URL (migrated), provides it globally and closes it on shutdown', async () => {
    const app = await NestFactory.createApplicationContext(
      { module: class Root {}, imports: [DatabaseModule.forRoot({ url: 'sqlite::memory:' }), FeatureModule] } as never,
      { logger: false },
    );
    const ds = app.get(NeedsDb).dataSource;
    expect(ds.isInitialized).toBe(true);
    expect(await ds.query('SELECT COUNT(*) AS n FROM tasks')).toEqual([{ n: 0 }]);
    await app.close();
    expect(ds.isInitialized).toBe(false);
  });

  it('shares a data source it is handed, and leaves closing it to its owner', async () => {
    const ds = await openDatabase('sqlite::memory:');
    const app = await NestFactory.createApplicationContext(
      { module: class Root2 {}, imports: [DatabaseModule.forRoot({ dataSource: ds }), FeatureModule] } as never,
      { logger: false },
    );
    expect(app.get(NeedsDb).dataSource).toBe(ds);
    await app.close();
    expect(ds.isInitialized).toBe(true);
    await ds.destroy();
  });
});
