import type { EntityManager } from 'typeorm';
import type { RunWakeups } from '@baton/messaging';
import { afterCommit } from '@baton/persistence';

/**
 * Runs cancelled in `em`'s transaction that an engine may have sent: once it commits, the engines
 * of each one's group are told (RunWakeups.cancelled), and they ask the executors to abort them —
 * a run sent ahead of its instant waits there for it.
 */
export function abortAtExecutorsAfterCommit(em: EntityManager, wakeups: RunWakeups, tenantId: string, runs: ReadonlyArray<{ runId: number; engineGroup: string }>): void {
  const byGroup = new Map<string, number[]>();
  for (const run of runs) {
    const ids = byGroup.get(run.engineGroup);
    if (ids) ids.push(run.runId);
    else byGroup.set(run.engineGroup, [run.runId]);
  }
  for (const [engineGroup, runIds] of byGroup) afterCommit(em, () => wakeups.cancelled({ tenantId, engineGroup, runIds }));
}
