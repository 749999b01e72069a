import { describe, expect, it } from 'vitest';
import { HeavyWorkQueueFullException, MAX_HEAVY_WAITING, TenantHeavyWork } from './tenant-heavy-work';

describe('TenantHeavyWork', () => {
  it("runs one tenant's heavy requests one at a time, another tenant's alongside", async () => {
    const work = new TenantHeavyWork();
    let running = 0;
    let most = 0;
    const job = (ms: number) => async () => {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, ms));
      running--;
    };
    const aJobs = [work.run('a', job(10)), work.run('a', job(10)), work.run('a', job(10))];
    let bDone = 0;
    const b = work.run('b', job(1)).then(() => (bDone = performance.now()));
    const aStarted = performance.now();
    await Promise.all(aJobs);
    await b;
    expect(most).toBe(2); // one of a's and b's
    expect(bDone - aStarted).toBeLessThan(25); // b did not wait for a's three
  });

  it('refuses a request beyond MAX_HEAVY_WAITING waiting with a 429 RATE_LIMITED that says when to retry, and takes requests again once they drain', async () => {
    const work = new TenantHeavyWork();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const queued = Array.from({ length: MAX_HEAVY_WAITING + 1 }, () => work.run('a', () => gate));
    const refused = await work.run('a', async () => 'ran').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(HeavyWorkQueueFullException);
    expect((refused as HeavyWorkQueueFullException).getStatus()).toBe(429);
    expect((refused as HeavyWorkQueueFullException).getResponse()).toMatchObject({ code: 'RATE_LIMITED' });
    expect((refused as HeavyWorkQueueFullException).retryAfterSeconds).toBe(1);
    expect(await work.run('b', async () => 'b ran')).toBe('b ran'); // another tenant is not refused
    release();
    await Promise.all(queued);
    expect(await work.run('a', async () => 'ran')).toBe('ran');
  });
});
