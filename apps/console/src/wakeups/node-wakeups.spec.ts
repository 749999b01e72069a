import { describe, expect, it } from 'vitest';
import type { RunCancels, RunWakeup, RunWakeups } from '@baton/messaging';
import { NodeWakeups } from './node-wakeups';

/** A RunWakeups that records what reached it. */
function recorder(): RunWakeups & { woken: RunWakeup[]; cancels: RunCancels[]; destroyed: number; onModuleDestroy(): void } {
  const r = {
    woken: [] as RunWakeup[],
    cancels: [] as RunCancels[],
    destroyed: 0,
    wake: (w: RunWakeup) => void r.woken.push(w),
    cancelled: (c: RunCancels) => void r.cancels.push(c),
    onModuleDestroy: () => void r.destroyed++,
  };
  return r;
}

describe('NodeWakeups', () => {
  it('wakes the local engine by a call for a group it serves, and only it; the engines of another group over HTTP', () => {
    const local = recorder();
    const remote = recorder();
    const wakeups = new NodeWakeups(local, ['default', 'reports'], remote);
    const ours = { tenantId: 'acme', engineGroup: 'reports', dueAt: 1, runIds: [7] };
    const theirs = { tenantId: 'globex', engineGroup: 'batch', dueAt: 2 };
    wakeups.wake(ours);
    wakeups.wake(theirs);
    expect(local.woken).toEqual([ours]);
    expect(remote.woken).toEqual([theirs]);
  });

  it('tells a cancel to the local engine and to the others (any of them may hold a run sent ahead)', () => {
    const local = recorder();
    const remote = recorder();
    const wakeups = new NodeWakeups(local, ['default'], remote);
    const cancels = { tenantId: 'acme', engineGroup: 'default', runIds: [1, 2] };
    wakeups.cancelled(cancels);
    expect(local.cancels).toEqual([cancels]);
    expect(remote.cancels).toEqual([cancels]);
  });

  it('closes the HTTP side with the module (its sockets and waiting notices)', () => {
    const remote = recorder();
    new NodeWakeups(recorder(), ['default'], remote).onModuleDestroy();
    expect(remote.destroyed).toBe(1);
  });
});
