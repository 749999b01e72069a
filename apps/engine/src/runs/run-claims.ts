import { Inject, Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { claimLeaseUntil } from '@baton/domain';
import { cancelOrphanedRuns, claimDueRuns, findClaimedRunTasks, releaseRuns, type LeasedRun, type TenantTake } from '@baton/persistence';
import type { ClaimedRun } from '../claimed-run';
import { ENGINE_CONFIG, type EngineConfig } from '../config/engine-config';
import { toClaimedRun } from './to-claimed-run';

/**
 * A run's entry into this node's hands and its way back out without being sent: due runs
 * CLAIMED under a lease (claimDueRuns, one statement for a whole claim turn), and CLAIMED runs
 * given back as PENDING (releaseRuns). Both in the caller's transaction, both guarded on
 * `claimed_by = this node` for the way back. A run whose task was deleted between its creation
 * and its claim is cancelled at the claim: there is no app or handler to send it to.
 */
@Injectable()
export class RunClaims {
  private readonly logger = new Logger('RunClaims');

  constructor(@Inject(ENGINE_CONFIG) private readonly config: EngineConfig) {}

  /** Claims up to each take's limit of its tenant's runs due before `dueBefore`; returns them joined with their tasks. */
  async claim(em: EntityManager, takes: readonly TenantTake[], at: { dueBefore: number; now: number }): Promise<ClaimedRun[]> {
    const owner = this.config.nodeId;
    const rows = await claimDueRuns(em, { takes, dueBefore: at.dueBefore, owner, leaseUntil: claimLeaseUntil(at.now, this.config.leaseMs), now: at.now });
    if (rows.length === 0) return [];
    const tasks = await findClaimedRunTasks(em, rows.map((r) => r.taskId));
    const orphans = rows.filter((r) => !tasks.has(r.taskId)).map((r) => r.id);
    if (orphans.length > 0) {
      await cancelOrphanedRuns(em, orphans, owner, at.now);
      this.logger.warn(`cancelled ${orphans.length} claimed run(s) whose task was deleted: ${orphans.join(', ')}`);
    }
    return rows.filter((r) => tasks.has(r.taskId)).map((r) => toClaimedRun(r, tasks.get(r.taskId)!));
  }

  /** CLAIMED → PENDING for runs this node holds and will not send; returns how many moved. */
  giveBack(em: EntityManager, runIds: readonly number[], now: number): Promise<number> {
    return releaseRuns(em, { ids: runIds, from: 'CLAIMED', owner: this.config.nodeId, now });
  }

  /**
   * Strays — runs this node holds in the database but nowhere in memory (LeaseRenewerService) —
   * back to PENDING as a dead node's are at a takeover: CLAIMED ones, and DISPATCHED ones with
   * their executor kept (the next claim sends them there again; it de-duplicates). Each move is
   * guarded on the state seen and this node as the holder; returns how many moved.
   */
  async giveBackStrays(em: EntityManager, strays: readonly LeasedRun[], now: number): Promise<number> {
    const owner = this.config.nodeId;
    let moved = 0;
    for (const from of ['CLAIMED', 'DISPATCHED'] as const) {
      const ids = strays.filter((r) => r.state === from).map((r) => r.id);
      if (ids.length > 0) moved += await releaseRuns(em, { ids, from, owner, now });
    }
    return moved;
  }
}
