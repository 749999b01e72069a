/**
 * @baton/executor-sdk/testing — run a handler in a unit test: in memory, with the context you
 * choose (params, attempt, run and task fields, deadline, an abort, a FakeClock for ctx.sleep),
 * and get back what the executor would report: outcome, result or error (and whether it is
 * retryable), log lines, progress, alarms, the interim and final callbacks. It runs the
 * executor's own context and outcome code; it loads neither Nest nor a broker client.
 */
export { runHandler, startHandler } from './run-handler';
export type { TestRun, TestRunOptions, TestRunResult } from './run-handler';
export { FakeClock } from './fake-clock';
export type { RunClock } from '../run-clock';
