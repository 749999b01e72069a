/**
 * @baton/logging — structured logs of the Baton processes: a pino logger factory (JSON lines,
 * pretty on a terminal; base fields `process`, `nodeId`) and the Nest LoggerService adapter that
 * routes Nest's and our `Logger` calls through it, with Nest's start-up chatter at debug.
 */
export { createLogger } from './create-logger';
export type { BatonLogger, BatonLoggerOptions, LogLevel } from './create-logger';
export { NestPinoLogger } from './nest-logger';
