/**
 * @baton/executor-sdk/nest — the executor inside a NestJS app: `ExecutorModule.forRoot(options)`
 * mounts the protocol routes on the app and runs the handlers given in `handlers` plus those
 * declared on providers with `@BatonHandler(name)` (bound to their instances, so they use
 * injected services).
 */
export { ExecutorModule, ExecutorController, ExecutorLifecycle } from './executor.module';
export { EXECUTOR_OPTIONS } from './executor-options';
export type { ExecutorModuleAsyncOptions, ExecutorModuleOptions } from './executor-options';
export { BatonHandler, BATON_HANDLER_METADATA } from './baton-handler.decorator';
export { DuplicateHandlerError } from './duplicate-handler-error';
