import { describe, expect, it } from 'vitest';
import type { HeldRunRow } from '@baton/persistence';
import { planRelease, SKIP_REASON } from './release-plan';

const NOW = 1_000_000;
let seq = 0;
const held = (over: Partial<HeldRunRow>): HeldRunRow => ({
  id: ++seq,
  tenantId: 'acme',
  taskId: 1,
  state: 'CLAIMED',
  cause: 'SCHEDULE',
  attempt: 1,
  scheduledAt: NOW - 10_000,
  dueAt: NOW - 10_000,
  leaseUntil: NOW - 1,
  executorId: null,
  misfirePolicy: 'SKIP',
  misfireThresholdMs: 5000,
  ...over,
});
const ids = (runs: HeldRunRow[]) => runs.map((r) => r.id);

describe('planRelease', () => {
  it('late by exactly the threshold is still on time', () => {
    const r = held({ dueAt: NOW - 5000 });
    expect(planRelease([r], NOW)).toEqual({ pending: [r], skipped: [] });
    const late = held({ dueAt: NOW - 5001 });
    expect(planRelease([late], NOW)).toEqual({ pending: [], skipped: [{ run: late, reason: SKIP_REASON }] });
  });

  it('FIRE_ONCE_NOW keeps the latest late run of each task (by scheduled time), skipping the rest', () => {
    const policy = { misfirePolicy: 'FIRE_ONCE_NOW' as const };
    const a1 = held({ ...policy, taskId: 1, scheduledAt: NOW - 30_000 });
    const a2 = held({ ...policy, taskId: 1, scheduledAt: NOW - 20_000 });
    const b1 = held({ ...policy, taskId: 2, scheduledAt: NOW - 30_000 });
    const aOnTime = held({ ...policy, taskId: 1, scheduledAt: NOW, dueAt: NOW });
    const plan = planRelease([a1, a2, b1, aOnTime], NOW);
    expect(ids(plan.pending).sort()).toEqual(ids([a2, b1, aOnTime]).sort());
    expect(plan.skipped.map((s) => s.run.id)).toEqual([a1.id]);
    expect(plan.skipped[0].reason).toMatch(new RegExp(`run ${a2.id} fires once`));
  });

  it('never skips DISPATCHED runs, manual or dependency runs, retries, or runs of deleted tasks; FIRE_ALL_MISSED fires all', () => {
    const runs = [
      held({ state: 'DISPATCHED', executorId: 3 }),
      held({ cause: 'MANUAL' }),
      held({ cause: 'DEPENDENCY' }),
      held({ attempt: 2 }),
      held({ misfirePolicy: null, misfireThresholdMs: null }),
      held({ misfirePolicy: 'FIRE_ALL_MISSED' }),
    ];
    expect(planRelease(runs, NOW)).toEqual({ pending: runs, skipped: [] });
  });
});
