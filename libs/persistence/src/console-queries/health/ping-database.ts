import type { EntityManager } from 'typeorm';
import { execute } from '../../engine-queries/sql';

/**
 * The health check's round trip to the database (no table, no tenant):
 *
 *   SELECT 1
 */
export async function pingDatabase(manager: EntityManager): Promise<void> {
  await execute(manager, 'SELECT 1');
}
