import type { ModuleMetadata } from '@nestjs/common';
import type { ExecutorOptions } from '../options';

/** Injection token of the options given to ExecutorModule. */
export const EXECUTOR_OPTIONS = Symbol('BATON_EXECUTOR_OPTIONS');

/**
 * ExecutorModule options: the executor options (`host`/`port` are the host app's business and
 * ignored). `handlers` is optional here: the module adds the @BatonHandler methods and classes
 * of the app's providers to it. Default `[]`.
 */
export type ExecutorModuleOptions = Omit<ExecutorOptions, 'host' | 'port' | 'handlers'> & Partial<Pick<ExecutorOptions, 'handlers'>>;

/** For `ExecutorModule.forRootAsync`: options from other providers (config, secrets). */
export interface ExecutorModuleAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  inject?: any[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  useFactory: (...args: any[]) => ExecutorModuleOptions | Promise<ExecutorModuleOptions>;
}
