import type { EntityManager } from 'typeorm';
import { RunAttemptEntity, RunLogEntity } from '../../entities';

/**
 * A run's earlier attempts (kept by retryRunAttempt), oldest first, and up to `logsPerAttempt`
 * log lines of each of `attempts` (its first lines, oldest first).
 *
 *   SELECT … FROM run_attempts WHERE run_id = ? AND tenant_id = ? ORDER BY attempt
 *   SELECT … FROM run_logs WHERE run_id = ? AND tenant_id = ? AND attempt = ? ORDER BY id LIMIT ?   -- per attempt
 */
export async function findRunAttempts(
  manager: EntityManager,
  input: { tenantId: string; runId: number; attempts: readonly number[]; logsPerAttempt: number },
): Promise<{ earlier: RunAttemptEntity[]; logs: Map<number, RunLogEntity[]> }> {
  const earlier = await manager.find(RunAttemptEntity, { where: { runId: input.runId, tenantId: input.tenantId }, order: { attempt: 'ASC' } });
  const logs = new Map<number, RunLogEntity[]>();
  for (const attempt of input.attempts) {
    logs.set(attempt, await manager.find(RunLogEntity, { where: { runId: input.runId, tenantId: input.tenantId, attempt }, order: { id: 'ASC' }, take: input.logsPerAttempt }));
  }
  return { earlier, logs };
}
