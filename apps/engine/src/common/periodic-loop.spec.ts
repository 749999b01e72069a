import { describe, expect, it, vi } from 'vitest';
import { PeriodicLoop } from './periodic-loop';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('PeriodicLoop', () => {
  it('runs one turn at a time, goes on after a failure, honours "again at once", and stop waits for the turn in progress', async () => {
    const starts: number[] = [];
    const ends: number[] = [];
    let inFlight = 0;
    let overlapped = false;
    const errors: string[] = [];
    const loop = new PeriodicLoop(
      'test',
      200,
      async () => {
        overlapped ||= inFlight++ > 0;
        starts.push(Date.now());
        await sleep(5);
        inFlight--;
        ends.push(Date.now());
        if (starts.length === 1) throw new Error('boom');
        if (starts.length === 2) return 0; // again at once
      },
      { log() {}, warn() {}, error: (m: string) => errors.push(m) },
    );
    loop.start();
    while (starts.length < 3) await sleep(5);
    expect(errors[0]).toMatch(/test failed: Error: boom/);
    expect(starts[1] - ends[0]).toBeGreaterThanOrEqual(190); // after a failure: the regular period
    expect(starts[2] - ends[1]).toBeLessThan(100); // "again at once"
    const stopping = loop.stop();
    expect(loop.isRunning).toBe(false);
    await stopping;
    const count = starts.length;
    await sleep(250);
    expect(starts.length).toBe(count);
    expect(overlapped).toBe(false);
  });

  it('runs a kicked turn without waiting for a timer (a 0 ms timer waits 1 ms at least)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] }); // timers fire only when advanced; immediates are real
    try {
      let turns = 0;
      const loop = new PeriodicLoop('test', 60_000, async () => void turns++, { log() {}, warn() {}, error() {} });
      loop.start(60_000);
      loop.kick();
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      expect(turns).toBe(1);
      await loop.stop();
    } finally {
      vi.useRealTimers();
    }
  });
});
