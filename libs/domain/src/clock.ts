/**
 * The one source of "now" for every app (console, engine, embedded). Domain functions never
 * call it — they take `now` as a parameter — but apps inject a `Clock` so tests can set time.
 * A timer whose delay is reckoned from the clock's `now` is set with the same clock's `after`,
 * so a test that moves time by hand moves the timers with it (a fake "now" paired with a real
 * setTimeout fires on the wall's time, not the test's).
 */
export interface Clock {
  /** Epoch milliseconds, UTC. */
  now(): number;
  /** Calls `fn` once, `ms` later by this clock; returns what cancels it. */
  after(ms: number, fn: () => void): () => void;
}

/** Injection token of the app's {@link Clock}. */
export const CLOCK = Symbol('baton.clock');

/**
 * The system clock: the single place Baton reads wall-clock time. Its timers are unref'd: they
 * never keep a process alive on their own.
 */
export const systemClock: Clock = {
  // eslint-disable-next-line no-restricted-syntax -- this is the clock every app injects.
  now: () => Date.now(),
  after(ms, fn) {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

/** A clock tests can set and move; its timers fire, in time order, as it is moved past them. */
export class ManualClock implements Clock {
  private readonly timers = new Set<{ at: number; fn: () => void }>();

  constructor(private current: number) {}
  now(): number {
    return this.current;
  }
  after(ms: number, fn: () => void): () => void {
    const timer = { at: this.current + Math.max(0, ms), fn };
    this.timers.add(timer);
    return () => this.timers.delete(timer);
  }
  /** Timers set and not yet fired nor cancelled. */
  get pendingTimers(): number {
    return this.timers.size;
  }
  set(ms: number): void {
    for (let next = this.firstDue(ms); next; next = this.firstDue(ms)) {
      this.timers.delete(next);
      this.current = Math.max(this.current, next.at);
      next.fn();
    }
    this.current = ms;
  }
  advance(ms: number): void {
    this.set(this.current + ms);
  }

  private firstDue(until: number): { at: number; fn: () => void } | undefined {
    let first: { at: number; fn: () => void } | undefined;
    for (const timer of this.timers) if (timer.at <= until && (!first || timer.at < first.at)) first = timer;
    return first;
  }
}
