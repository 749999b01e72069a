import type { EntityManager } from 'typeorm';
import { TaskEntity } from '../../entities';
import { chunks } from '../../engine-queries/sql';

/** Rows per INSERT: well inside SQLite's 32,766 bound parameters (~35 columns a row). */
const INSERT_CHUNK = 200;

/**
 * New tasks (POST /api/tasks, and a batch of up to 1,000), multi-row, 200 a statement; each row
 * carries its tenant (made by the caller from the tenant's own row):
 *
 *   INSERT INTO tasks (tenant_id, engine_group, name, …) VALUES (…), (…)
 *
 * A name taken meanwhile fails on uq_tasks_tenant_name (the caller answers 409). A single row
 * gets its id back on the entity.
 */
export async function insertTasks(manager: EntityManager, rows: readonly TaskEntity[]): Promise<void> {
  for (const part of chunks(rows, INSERT_CHUNK)) await manager.insert(TaskEntity, part);
}
