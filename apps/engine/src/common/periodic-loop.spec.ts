import { describe, expect, it, vi } from 'vitest';
import { PeriodicLoop } from './periodic-loop';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('PeriodicLoop', () => {
  it('runs one turn at a time, goes on after a failure, honours "again at once", and stop waits for the turn in progress', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: 1_000_000 }); // the loop's timers and the turns' sleeps move with the fake time
    try {
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
      await vi.advanceTimersByTimeAsync(5); // the first turn, and its failure
      expect(errors[0]).toMatch(/test failed: Error: boom/);
      await vi.advanceTimersByTimeAsync(199);
      expect(starts).toHaveLength(1); // after a failure: the regular period
      await vi.advanceTimersByTimeAsync(1 + 5); // the second turn
      await vi.advanceTimersByTimeAsync(1); // and at once the third (a 0 ms timer: Node's least delay, 1 ms)
      expect(starts).toHaveLength(3);
      expect(starts[1] - ends[0]).toBe(200);
      expect(starts[2] - ends[1]).toBeLessThanOrEqual(1); // "again at once", not after the 200 ms period
      const stopping = loop.stop();
      expect(loop.isRunning).toBe(false);
      await vi.advanceTimersByTimeAsync(5); // the turn in progress ends
      await stopping;
      expect(ends).toHaveLength(3);
      await vi.advanceTimersByTimeAsync(1_000); // five periods: a running loop would have turned
      expect(starts).toHaveLength(3);
      expect(vi.getTimerCount()).toBe(0);
      expect(overlapped).toBe(false);
    } finally {
      vi.useRealTimers();
    }
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
