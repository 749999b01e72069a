import { afterEach, beforeEach } from 'vitest';
import type { Logger } from 'typeorm';
import type { TestDatabaseHandle } from './databases';

/**
 * The packets a test's statements reach the database in, as TypeORM's logger sees each query the
 * driver sends (a transaction's riders go as one: libs/persistence/src/engine-queries/riders.ts). Counting
 * starts at each test (after the caller's own beforeEach hooks registered before this call) and the
 * data source's logger is given back after it. Call inside a describe, after useTestDatabase.
 */
export function usePacketLog(db: TestDatabaseHandle): { readonly packets: string[]; clear(): void } {
  const log = { packets: [] as string[], clear: () => void log.packets.splice(0) };
  let logger: Logger;
  beforeEach(() => {
    log.clear();
    logger = db.dataSource.logger;
    const counting: Logger = { logQuery: (sql: string) => void log.packets.push(sql), logQueryError: () => undefined, logQuerySlow: () => undefined, logSchemaBuild: () => undefined, logMigration: () => undefined, log: () => undefined };
    Object.assign(db.dataSource, { logger: counting });
  });
  afterEach(() => Object.assign(db.dataSource, { logger }));
  return log;
}
