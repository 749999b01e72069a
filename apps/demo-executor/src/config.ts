import { executorOptionsFromEnv, type ExecutorLogger, type ExecutorOptions } from '@baton/executor-sdk';
import { buildDemoHandlers } from './handlers';

/**
 * The demo executor's options: the SDK's `executorOptionsFromEnv()` (every BATON_* variable of
 * an executor, see EXECUTOR_ENV) with two differences: the app defaults to `demo` (the app of the
 * demo tasks) instead of the SDK's `default`, and `BATON_DEMO_RECORD_FILE` (a JSONL file, one
 * line per handler invocation; default none) feeds the demo handlers.
 */
export function demoExecutorOptionsFromEnv(env: NodeJS.ProcessEnv, logger: ExecutorLogger = stderrLogger): ExecutorOptions {
  return {
    ...executorOptionsFromEnv(env, { ...(env.BATON_EXECUTOR_APP?.trim() ? {} : { app: 'demo' }), logger }),
    handlers: buildDemoHandlers({ recordFile: env.BATON_DEMO_RECORD_FILE?.trim() || undefined }),
  };
}

/** Everything to stderr: stdout carries only the `READY <url>` line. */
export const stderrLogger: ExecutorLogger = {
  info: (m) => console.error(m),
  warn: (m) => console.error(m),
  error: (m) => console.error(m),
};
