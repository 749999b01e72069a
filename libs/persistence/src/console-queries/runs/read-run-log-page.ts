import { MoreThan, type EntityManager } from 'typeorm';
import { RunLogEntity } from '../../entities';

/**
 * One page of a run's log lines after line `afterId`, oldest first (the run log download reads
 * the whole log a page at a time, so a long log never sits in memory at once).
 *
 *   SELECT … FROM run_logs WHERE run_id = ? AND tenant_id = ? AND id > ? ORDER BY id LIMIT ?
 */
export function readRunLogPage(manager: EntityManager, input: { tenantId: string; runId: number; afterId: number; limit: number }): Promise<RunLogEntity[]> {
  return manager.find(RunLogEntity, {
    where: { runId: input.runId, tenantId: input.tenantId, id: MoreThan(input.afterId) },
    order: { id: 'ASC' },
    take: input.limit,
  });
}
