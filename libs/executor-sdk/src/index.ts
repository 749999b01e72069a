/**
 * @baton/executor-sdk — what a business service imports to run Baton tasks.
 *
 * - `defineHandler(name, async (ctx) => result)`: a handler (see HandlerContext).
 * - `createExecutorServer(options)`: a standalone executor on node:http.
 * - `ExecutorModule.forRoot(options)`: the same executor inside a NestJS app.
 * Both run on one `ExecutorRuntime`. Options and defaults: ExecutorOptions.
 */
export { defineHandler } from './handler';
export type { AnyTaskHandler, HandlerContext, RunLogFn, RunLogger, TaskHandler } from './handler';
export { RunAbortedError } from './errors';
export { NonRetryableError } from './non-retryable-error';
export { EXECUTOR_DEFAULTS, resolveExecutorOptions } from './options';
export type { ExecutorLogger, ExecutorOptions, ResolvedExecutorOptions } from './options';
export { ExecutorRuntime } from './runtime';
export type { ExecutorHealth, ExecutorRequest, ExecutorResponse, ExecutorStats } from './runtime-types';
export { createExecutorServer } from './server';
export type { ExecutorServer } from './server';
export { ExecutorEventEmitter } from './events';
export type { ExecutorEventName, ExecutorEvents, RunEventKey } from './events';
export type { SpoolEntry } from './spool';
export { EXECUTOR_OPTIONS, ExecutorController, ExecutorLifecycle, ExecutorModule } from './nest';
export type { ExecutorModuleAsyncOptions, ExecutorModuleOptions } from './nest';
