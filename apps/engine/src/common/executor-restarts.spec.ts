import { describe, expect, it } from 'vitest';
import { ExecutorRestarts, RESTARTS_A_TAKE, RESTARTS_A_TAKE_PER_TENANT } from './executor-restarts';

const restart = (executorId: number, tenantId: string, startedAt = 1_000) => ({ executorId, tenantId, startedAt, active: [] });

describe('ExecutorRestarts', () => {
  it('hands each process of an executor over once', () => {
    const restarts = new ExecutorRestarts();
    restarts.heard(restart(1, 'acme'));
    restarts.heard(restart(1, 'acme'));
    expect(restarts.take().map((r) => r.executorId)).toEqual([1]);
    restarts.heard(restart(1, 'acme'));
    expect(restarts.take()).toEqual([]);
    restarts.heard(restart(1, 'acme', 2_000));
    expect(restarts.take().map((r) => r.startedAt)).toEqual([2_000]);
  });

  it("bounds a take, in all and per tenant: a tenant's storm of restarts leaves room for another's", () => {
    const restarts = new ExecutorRestarts();
    for (let id = 1; id <= 100; id++) restarts.heard(restart(id, 'noisy'));
    restarts.heard(restart(1_000, 'quiet'));
    const first = restarts.take();
    expect(first.filter((r) => r.tenantId === 'noisy')).toHaveLength(RESTARTS_A_TAKE_PER_TENANT);
    expect(first.filter((r) => r.tenantId === 'quiet')).toHaveLength(1);
    expect(first.length).toBeLessThanOrEqual(RESTARTS_A_TAKE);
    let taken = first.length;
    for (let turn = 0; turn < 100 && taken < 101; turn++) taken += restarts.take().length;
    expect(taken).toBe(101);
  });
});
