import { DynamicModule, Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { openDatabase } from '../data-source';

/**
 * Where the module gets its data source: a Baton database URL it opens (and closes), or one it is
 * handed (closed by its owner, or by the module with `close: true`).
 */
export type DatabaseModuleOptions = { url: string } | { dataSource: DataSource; close?: boolean };

const OWNED = Symbol('baton.database.owned');

@Injectable()
class DataSourceCloser implements OnApplicationShutdown {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(OWNED) private readonly owned: boolean,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.owned && this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}

/**
 * Provides the TypeORM `DataSource` (injectable by its class) to the whole Nest application.
 *
 * - `DatabaseModule.forRoot({ url })` opens the database with `openDatabase(url)` (which runs
 *   the migrations) and closes it when the application shuts down;
 * - `DatabaseModule.forRoot({ dataSource })` shares a data source opened elsewhere (e.g. one the
 *   embedded app also gives the engine); its owner closes it;
 * - `await DatabaseModule.open(url)` opens the database before the application is made, and
 *   closes it when the application shuts down: a process's way, so that a database it cannot use
 *   stops it with openDatabase's one line (DatabaseUnavailableError) — failing inside a module's
 *   factory, it would be logged by Nest with its stack first.
 *
 * Import it once per application: it is global.
 */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(options: DatabaseModuleOptions): DynamicModule {
    const owned = 'url' in options || options.close === true;
    return {
      module: DatabaseModule,
      providers: [
        {
          provide: DataSource,
          useFactory: async () => ('url' in options ? openDatabase(options.url) : options.dataSource),
        },
        { provide: OWNED, useValue: owned },
        DataSourceCloser,
      ],
      exports: [DataSource],
    };
  }

  /** The module on `url`, opened now (openDatabase) and closed on the application's shutdown. */
  static async open(url: string): Promise<DynamicModule> {
    return DatabaseModule.forRoot({ dataSource: await openDatabase(url), close: true });
  }
}
