import type { EntityManager } from 'typeorm';
import { randomUUID } from 'node:crypto';
import { RunEntity } from '../../entities';

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
  const { now } = input;
  const run = manager.create(RunEntity, {
    tenantId: input.tenantId,
    taskId: input.taskId,
    engineGroup: input.engineGroup,
    state: 'PENDING',
    cause: 'MANUAL',
    fireKey: `m:${randomUUID()}`,
    flowId: null,
    parentRunId: null,
    attempt: 1,
    priority: input.priority,
    params: input.params,
    scheduledAt: now,
    dueAt: now,
    instantAt: null,
    claimedBy: null,
    leaseUntil: null,
    executorId: null,
    dispatchedAt: null,
    acceptedAt: null,
    startedAt: null,
    finishedAt: null,
    result: null,
    error: null,
    progress: null,
    flowParams: input.flowParams ?? null,
    // Every column, nulls included: the caller answers with this row as the database holds it.
    parentResults: null,
    shardIndex: null,
    shardTotal: null,
    pinnedExecutorId: null,
    deadlineAt: null,
    firstDispatchedAt: null,
    lateAlarmedAt: null,
    traceParent: null,
    runKey: null,
    createdAt: now,
    updatedAt: now,
  });
  await manager.insert(RunEntity, run);
  return run;
}
