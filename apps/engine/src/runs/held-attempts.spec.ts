import { describe, expect, it } from 'vitest';
import type { ClaimedRun } from '../common/claimed-run';
import { aClaimedRun } from '../testing/claimed-run-fixture';
import { HELD_ATTEMPT_MS, HeldAttempts, MAX_HELD_ATTEMPTS } from './held-attempts';

const T0 = 1_790_000_000_000;
const EXECUTOR = { executorId: 7, url: 'http://127.0.0.1:9101' };

function run(runId: number, more: Partial<ClaimedRun> = {}): ClaimedRun {
  return aClaimedRun(runId, T0, {
    taskId: 3,
    taskName: 'charge',
    attempt: 2,
    instant: T0 + 5,
    retry: { maxAttempts: 3, backoffBaseMs: 1000, backoffMaxMs: 60_000, jitter: 0 },
    alarmTypes: ['FAILED'],
    followUps: { children: true, fixedDelay: false },
    ...more,
  });
}

describe('HeldAttempts', () => {
  it('gives the attempt back once, as the callback lookup would read it just after its acceptance', () => {
    const held = new HeldAttempts();
    held.hold(run(1, { shard: { parentRunId: 99, index: 0, total: 2, pinnedExecutorId: null }, cause: 'SHARD' }), EXECUTOR, T0);
    expect(held.take({ runId: 1, attempt: 2, tenantId: 'acme', executorId: 7 })).toEqual({
      runId: 1,
      tenantId: 'acme',
      taskId: 3,
      taskName: 'charge',
      state: 'ACCEPTED',
      attempt: 2,
      cause: 'SHARD',
      flowId: 1,
      executorId: 7,
      executorUrl: EXECUTOR.url,
      scheduledAt: T0,
      instant: T0 + 5,
      startedAt: null,
      retry: { maxAttempts: 3, backoffBaseMs: 1000, backoffMaxMs: 60_000, jitter: 0 },
      alarmTypes: ['FAILED'],
      alarmSilenceMs: 0,
      followUps: { children: true, fixedDelay: false },
      shardOf: 99,
      traceParent: null,
      runKey: null,
      keyScope: null,
      withdrawal: null,
    });
    expect(held.take({ runId: 1, attempt: 2, tenantId: 'acme' })).toBeNull();
  });

  it.each([
    ['another attempt', { attempt: 3 }],
    ["another tenant's run of that id", { tenantId: 'globex' }],
    ['another executor', { executorId: 8 }],
  ])('gives nothing for a callback of %s (it reads the run)', (_, differs) => {
    const held = new HeldAttempts();
    held.hold(run(1), EXECUTOR, T0);
    expect(held.take({ runId: 1, attempt: 2, tenantId: 'acme', executorId: 7, ...differs })).toBeNull();
    expect(held.size).toBe(0);
  });

  it("does not hold a keyed task's run: its end frees a place only its row names", () => {
    const held = new HeldAttempts();
    held.hold(run(1, { keyed: true }), EXECUTOR, T0);
    expect(held.size).toBe(0);
  });

  it(`holds at most ${MAX_HELD_ATTEMPTS} attempts and none longer than ${HELD_ATTEMPT_MS} ms: the oldest go first`, () => {
    const held = new HeldAttempts();
    for (let id = 1; id <= MAX_HELD_ATTEMPTS + 5; id++) held.hold(run(id), EXECUTOR, T0);
    expect(held.size).toBe(MAX_HELD_ATTEMPTS);
    expect(held.take({ runId: 5, attempt: 2, tenantId: 'acme' })).toBeNull();
    expect(held.take({ runId: 6, attempt: 2, tenantId: 'acme' })).not.toBeNull();
    held.hold(run(0), EXECUTOR, T0 + HELD_ATTEMPT_MS);
    expect(held.size).toBe(1);
    expect(held.take({ runId: 0, attempt: 2, tenantId: 'acme' })).not.toBeNull();
  });
});
