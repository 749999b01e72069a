import { readFileSync } from 'node:fs';
import { UsageError } from './usage-error';

/**
 * The text of a file the command line names (`-f tasks.yaml`, `--mapping map.yaml`): a path that
 * cannot be read is the command line's mistake, answered as one (the option, the path and why;
 * exit 2), not as a crash with a stack.
 */
export function readNamedFile(option: string, file: string, usage: (message: string) => UsageError = (message) => new UsageError(message)): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw usage(`${option} ${file}: cannot be read: ${(error as Error).message}`);
  }
}
