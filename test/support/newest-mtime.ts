import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The newest modification time (ms) of the files under `dir` (0 when none): a build older than it is stale. */
export function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}
