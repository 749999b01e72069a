import { describe, expect, it } from 'vitest';
import { HeavyWorkQueueFullError } from './heavy-work-queue-full-error';
import { MAX_HEAVY_WAITING, TenantHeavyWork } from './tenant-heavy-work';

describe('TenantHeavyWork', () => {
  it("runs one tenant's heavy requests one at a time, another tenant's alongside", async () => {
    const work = new TenantHeavyWork();
    const started: string[] = [];
    let releaseA1!: () => void;
    const a1Gate = new Promise<void>((r) => (releaseA1 = r));
    const a1 = work.run('a', async () => {
      started.push('a1');
      await a1Gate;
    });
    const a2 = work.run('a', async () => {
      started.push('a2');
    });
    // b runs to its end while a's first is still held: it does not wait behind a's lane.
    await work.run('b', async () => {
      started.push('b');
    });
    expect(started).toEqual(['a1', 'b']); // a2 waits for a1
    releaseA1();
    await Promise.all([a1, a2]);
    expect(started).toEqual(['a1', 'b', 'a2']);
  });

  it('refuses a request beyond MAX_HEAVY_WAITING waiting with a 429 RATE_LIMITED that says when to retry, and takes requests again once they drain', async () => {
    const work = new TenantHeavyWork();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const queued = Array.from({ length: MAX_HEAVY_WAITING + 1 }, () => work.run('a', () => gate));
    const refused = await work.run('a', async () => 'ran').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(HeavyWorkQueueFullError);
    expect((refused as HeavyWorkQueueFullError).getStatus()).toBe(429);
    expect((refused as HeavyWorkQueueFullError).getResponse()).toMatchObject({ code: 'RATE_LIMITED' });
    expect((refused as HeavyWorkQueueFullError).retryAfterSeconds).toBe(1);
    expect(await work.run('b', async () => 'b ran')).toBe('b ran'); // another tenant is not refused
    release();
    await Promise.all(queued);
    expect(await work.run('a', async () => 'ran')).toBe('ran');
  });

  it('hold: a streamed answer keeps the lane until it gives it back; another tenant is not held', async () => {
    const work = new TenantHeavyWork();
    const release = await work.hold('a');
    const started: string[] = [];
    const a = work.run('a', async () => void started.push('a'));
    await work.run('b', async () => void started.push('b'));
    expect(started).toEqual(['b']);
    release();
    release(); // a second call (the answer ended, then its socket closed) does nothing
    await a;
    expect(started).toEqual(['b', 'a']);
    const again = await work.hold('a'); // the lane is free again
    again();
  });
});
