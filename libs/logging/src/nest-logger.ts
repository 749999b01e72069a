import type { LoggerService } from '@nestjs/common';
import type { BatonLogger } from './create-logger';

/**
 * Nest's start-up chatter, logged at `debug`: one line per route (RoutesResolver, RouterExplorer),
 * per module (InstanceLoader), per socket.io message (WebSocketsController), and the "starting" /
 * "started" lines. At `info` a process prints a handful of lines at start, not ~50.
 */
const CHATTY_CONTEXTS = new Set(['RoutesResolver', 'RouterExplorer', 'InstanceLoader', 'WebSocketsController', 'NestFactory', 'NestApplication']);

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * Nest's LoggerService on pino: `NestFactory.create(…, { logger: new NestPinoLogger(logger) })`
 * sends Nest's lines and every `new Logger(Context)` of our classes through it. The Nest context
 * becomes the `context` field; a plain object among the arguments adds its fields to the line
 * (`this.logger.warn('lease lost', { tenantId, runId })`), an Error or a stack becomes `err`.
 */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: BatonLogger) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: Level, message: unknown, params: unknown[]): void {
    const fields: Record<string, unknown> = {};
    const rest = [...params];
    // Nest appends the context as the last argument; a lone string after an error message is its stack.
    const last = rest[rest.length - 1];
    if (typeof last === 'string' && !isStack(last)) fields.context = rest.pop();
    for (const param of rest) absorb(fields, param);
    let text: string;
    if (message instanceof Error) {
      fields.err = message;
      text = message.message;
    } else if (isPlainObject(message)) {
      const { msg, message: m, ...more } = message;
      Object.assign(fields, more);
      text = String(msg ?? m ?? '');
    } else {
      text = String(message);
    }
    if (level === 'info' && CHATTY_CONTEXTS.has(fields.context as string)) level = 'debug';
    this.logger[level](fields, text);
  }
}

function absorb(fields: Record<string, unknown>, param: unknown): void {
  if (param instanceof Error) fields.err = param;
  else if (typeof param === 'string' && isStack(param)) fields.stack = param;
  else if (isPlainObject(param)) Object.assign(fields, param);
  else if (param !== undefined) fields.extra = [...((fields.extra as unknown[]) ?? []), param];
}

function isStack(text: string): boolean {
  return /\n\s+at /.test(text);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}
