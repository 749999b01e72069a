/** The one source of "now" in the console: inject `CLOCK`, never call Date.now() in services. */
export interface Clock {
  /** Epoch milliseconds, UTC. */
  now(): number;
}

/** Injection token of the console's {@link Clock}. */
export const CLOCK = Symbol('baton.console.clock');

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
