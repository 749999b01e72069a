/**
 * @baton/executor-sdk — what a business service imports to run Baton tasks.
 *
 * - `defineHandler(name, async (ctx) => result)`: a handler (see HandlerContext).
 * - `runExecutor(...handlers)`: the process's executor, options from BATON_* variables
 *   (`executorOptionsFromEnv()`, table EXECUTOR_ENV), graceful stop on SIGTERM/SIGINT.
 * - `createExecutorServer(options)`: a standalone executor on node:http you start and stop.
 * - `@baton/executor-sdk/nest`: the same executor inside a NestJS app (ExecutorModule);
 *   `@baton/executor-sdk/testing`: run a handler in memory in a unit test.
 * All run on one `ExecutorRuntime`. Options and defaults: ExecutorOptions.
 * This entry loads neither Nest nor stompit (a test checks the module cache): keep Nest imports
 * in nest/ and load the broker client only where a broker is used.
 */
export { defineHandler } from './handler';
export type { AnyTaskHandler, HandlerContext, HandlerOptions, RunLogFn, RunLogger, TaskHandler } from './handler';
export { RunAbortedError } from './run-aborted-error';
export { NonRetryableError } from './non-retryable-error';
export { EXECUTOR_DEFAULTS, ExecutorOptionsError, resolveExecutorOptions } from './options';
export type { ExecutorLogger, ExecutorOptions, ResolvedExecutorOptions, RunLogFields } from './options';
export { ExecutorRuntime } from './runtime';
export type { ExecutorHealth, ExecutorRequest, ExecutorResponse, ExecutorStats } from './runtime-types';
export { createExecutorServer } from './server';
export type { ExecutorServer } from './server';
export { ExecutorEventEmitter } from './events';
export type { ExecutorEventName, ExecutorEvents, RunEventKey } from './events';
export type { SpoolEntry } from './spool';
export { runExecutor } from './run-executor';
export { executorOptionsFromEnv } from './env/executor-options-from-env';
export type { EnvExecutorOptions } from './env/executor-options-from-env';
export { EXECUTOR_ENV } from './env/executor-env';
export type { EnvVariableSpec } from './env/executor-env';
export { ExecutorEnvError } from './env/executor-env-error';
