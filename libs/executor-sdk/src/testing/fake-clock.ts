import type { RunClock } from '../run-clock';

interface Timer {
  at: number;
  fn: () => void;
}

/**
 * A clock that moves only when told to: `ctx.sleep`, the run's deadline and the abort grace of
 * a handler run by runHandler/startHandler wait for `advance()`, so a test of a handler that
 * sleeps an hour takes no time.
 *
 *     const clock = new FakeClock();
 *     const run = startHandler(pollUntilReady, { clock });
 *     await clock.advance(60_000);               // the handler's ctx.sleep(60_000) resolves
 *     expect((await run.done).outcome).toBe('SUCCEEDED');
 */
export class FakeClock implements RunClock {
  private readonly timers = new Map<number, Timer>();
  private nextId = 1;
  private current: number;

  /** `start`: the clock's time (epoch ms). Default: the real time when it is created. */
  constructor(start: number = Date.now()) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): number {
    const id = this.nextId++;
    this.timers.set(id, { at: this.current + Math.max(0, ms), fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  /** Timers waiting (sleeps, the deadline, grace periods). */
  get pending(): number {
    return this.timers.size;
  }

  /**
   * Moves the clock `ms` forward, firing the timers that fall due in time order, and lets the
   * handler run (its promises settle) after each one, so the timers it sets then fire too when
   * they are due within the same advance.
   */
  async advance(ms: number): Promise<void> {
    const target = this.current + Math.max(0, ms);
    await settle();
    for (let next = this.due(target); next; next = this.due(target)) {
      this.timers.delete(next[0]);
      this.current = Math.max(this.current, next[1].at);
      next[1].fn();
      await settle();
    }
    this.current = target;
    await settle();
  }

  private due(target: number): [number, Timer] | undefined {
    let first: [number, Timer] | undefined;
    for (const entry of this.timers) if (entry[1].at <= target && (!first || entry[1].at < first[1].at)) first = entry;
    return first;
  }
}

/** Lets pending promise callbacks and I/O callbacks run. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
