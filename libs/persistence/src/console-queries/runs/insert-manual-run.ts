import type { EntityManager } from 'typeorm';
import { randomUUID } from 'node:crypto';
import { RunEntity } from '../../entities';
import { newRunRow } from './new-run-row';

/**
 * A user runs a task now (POST /api/tasks/{id}/trigger): a PENDING run, cause MANUAL, due now,
 * its own flow's root (flow_id null: RunEntity.flowId), with a snapshot of the params it runs with. A new row in the machine's
 * first state — no transition — under a fire key of its own (`m:<uuid>`), so two triggers are
 * two runs.
 *
 *   INSERT INTO runs (…, state, cause, fire_key, …) VALUES (…, 'PENDING', 'MANUAL', 'm:<uuid>', …)
 *
 * Returns the new run's row, as written (its answer needs no read back).
 */
export async function insertManualRun(
  manager: EntityManager,
  input: { tenantId: string; taskId: number; engineGroup: string; priority: number; params: RunEntity['params']; flowParams?: string | null; now: number },
): Promise<RunEntity> {
  const run = manager.create(RunEntity, newRunRow({ ...input, flowParams: input.flowParams ?? null, fireKey: `m:${randomUUID()}`, cause: 'MANUAL', traceParent: null }));
  await manager.insert(RunEntity, run);
  return run;
}
