import type { EntityManager } from 'typeorm';
import { findHeldRuns, releaseRuns, skipMisfiredRuns } from '@baton/persistence';
import { planRelease } from './release-plan';

export interface ReleaseHeldRunsInput {
  owner: string;
  now: number;
  /** Only runs whose lease ended before this (the expired-lease sweep). Unset: every run the owner holds. */
  leaseBefore?: number;
  /** Default both. A graceful shutdown gives back only CLAIMED runs. */
  states?: ReadonlyArray<'CLAIMED' | 'DISPATCHED'>;
}

export interface ReleaseSummary {
  /** CLAIMED → PENDING. */
  claimed: number;
  /** DISPATCHED → PENDING, executor kept. */
  dispatched: number;
  /** CLAIMED → SKIPPED by misfire policy. */
  skipped: number;
  /** Runs found held, per tenant (who to alarm). */
  tenants: Map<string, number>;
}

/** Runs read per round; a dead engine holding more is released over several rounds of the same transaction. */
const PAGE = 2000;

/**
 * Gives back the runs one engine holds, in the caller's transaction: read them (findHeldRuns),
 * apply the misfire policies (planRelease), then guarded UPDATEs (skipMisfiredRuns,
 * releaseRuns) naming the owner, the state seen and the lease bound, so anything that moved
 * meanwhile is left alone. FIRE_ONCE_NOW picks its one catch-up run per page of PAGE runs.
 */
export async function releaseHeldRuns(em: EntityManager, input: ReleaseHeldRunsInput): Promise<ReleaseSummary> {
  const summary: ReleaseSummary = { claimed: 0, dispatched: 0, skipped: 0, tenants: new Map() };
  const guard = { owner: input.owner, leaseBefore: input.leaseBefore, now: input.now };
  for (;;) {
    const held = await findHeldRuns(em, { owner: input.owner, states: input.states, leaseBefore: input.leaseBefore, limit: PAGE });
    if (held.length === 0) break;
    for (const run of held) summary.tenants.set(run.tenantId, (summary.tenants.get(run.tenantId) ?? 0) + 1);
    const plan = planRelease(held, input.now);
    let moved = 0;
    const byReason = new Map<string, number[]>();
    for (const { run, reason } of plan.skipped) byReason.set(reason, [...(byReason.get(reason) ?? []), run.id]);
    for (const [reason, ids] of byReason) {
      const n = await skipMisfiredRuns(em, { ...guard, ids, reason });
      summary.skipped += n;
      moved += n;
    }
    const claimed = plan.pending.filter((r) => r.state === 'CLAIMED').map((r) => r.id);
    const dispatched = plan.pending.filter((r) => r.state === 'DISPATCHED').map((r) => r.id);
    const c = await releaseRuns(em, { ...guard, ids: claimed, from: 'CLAIMED' });
    const d = await releaseRuns(em, { ...guard, ids: dispatched, from: 'DISPATCHED' });
    summary.claimed += c;
    summary.dispatched += d;
    moved += c + d;
    // Nothing moved: another engine is releasing the same runs; it is its job now.
    if (moved === 0 || held.length < PAGE) break;
  }
  return summary;
}
