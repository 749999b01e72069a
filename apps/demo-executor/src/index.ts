export { buildDemoHandlers, DEMO_HANDLER_NAMES } from './handlers';
export type { DemoHandlerOptions, DemoInvocationRecord } from './handlers';
export { demoExecutorOptionsFromEnv, stderrLogger } from './config';
