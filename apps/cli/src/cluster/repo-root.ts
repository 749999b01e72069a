import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The Baton checkout this CLI runs from (the folder with scripts/mariadb.sh), from the source or from dist/. */
export function repoRoot(from = __dirname): string {
  for (let dir = from; dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'scripts', 'mariadb.sh'))) return dir;
  }
  throw new Error(`baton: no Baton checkout (scripts/mariadb.sh) above ${from}`);
}
