/**
 * The one source of "now" for every app (console, engine, embedded). Domain functions never
 * call it — they take `now` as a parameter — but apps inject a `Clock` so tests can set time.
 */
export interface Clock {
  /** Epoch milliseconds, UTC. */
  now(): number;
}

/** Injection token of the app's {@link Clock}. */
export const CLOCK = Symbol('baton.clock');

/** The system clock: the single place Baton reads wall-clock time. */
// eslint-disable-next-line no-restricted-syntax -- this is the clock every app injects.
export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests can set and move. */
export class ManualClock implements Clock {
  constructor(private current: number) {}
  now(): number {
    return this.current;
  }
  set(ms: number): void {
    this.current = ms;
  }
  advance(ms: number): void {
    this.current += ms;
  }
}
