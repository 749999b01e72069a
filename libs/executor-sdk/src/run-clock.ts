/**
 * The time a run's context lives on: its deadline timer, `ctx.sleep`, the abort grace, the
 * progress throttle and the timestamps of log lines and alarms. The runtime uses the system
 * clock; `@baton/executor-sdk/testing` can put a FakeClock there.
 */
export interface RunClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Date.now and the global timers. */
export const SYSTEM_CLOCK: RunClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
