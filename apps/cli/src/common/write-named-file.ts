import { writeFileSync } from 'node:fs';
import { UsageError } from './usage-error';

/**
 * Writes a file the command line names (`-o tasks.yaml`): a path that cannot be written (its
 * folder missing, no permission) is the command line's mistake, answered as one (the option, the
 * path and why; exit 2), not as a crash with a stack — as readNamedFile answers one it cannot read.
 */
export function writeNamedFile(option: string, file: string, text: string, usage: (message: string) => UsageError = (message) => new UsageError(message)): void {
  try {
    writeFileSync(file, text);
  } catch (error) {
    throw usage(`${option} ${file}: cannot be written: ${(error as Error).message}`);
  }
}
