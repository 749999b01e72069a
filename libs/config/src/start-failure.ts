import { ConfigError } from './config-error';
import { PortInUseError } from './port-in-use-error';

type ErrorClass = abstract new (...args: never[]) => Error;

/**
 * The last word of a process that could not start: a refusal whose message says what to do (a
 * bad variable, a busy port, or one of `refusals`) is printed as that one line; anything else
 * with its stack. Exits 1.
 */
export function exitOnStartFailure(error: unknown, refusals: readonly ErrorClass[] = []): never {
  const oneLine = [ConfigError, PortInUseError, ...refusals].some((kind) => error instanceof kind);
  process.stderr.write(`${oneLine ? (error as Error).message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
}
