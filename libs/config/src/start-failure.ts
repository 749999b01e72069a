import { ConfigError } from './config-error';
import { PortInUseError } from './port-in-use-error';

type ErrorClass = abstract new (...args: never[]) => Error;

/**
 * The last word of a process that could not start: a refusal whose message says what to do (a
 * bad variable — a database BATON_DB_URL cannot open among them —, a busy port, or one of
 * `refusals`) is printed as that one line; anything else with its stack. Exits 1. At
 * BATON_LOG_LEVEL debug or trace, a refusal's cause (the driver's error) follows with its stack.
 */
export function exitOnStartFailure(error: unknown, refusals: readonly ErrorClass[] = []): never {
  const oneLine = [ConfigError, PortInUseError, ...refusals].some((kind) => error instanceof kind);
  process.stderr.write(`${oneLine ? (error as Error).message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  const cause = oneLine ? (error as Error).cause : undefined;
  if (cause instanceof Error && /^(debug|trace)$/.test(process.env.BATON_LOG_LEVEL ?? '')) process.stderr.write(`caused by: ${cause.stack ?? cause.message}\n`);
  process.exit(1);
}
