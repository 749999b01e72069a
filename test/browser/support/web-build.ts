import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { newestMtime } from '../../support/newest-mtime';

const ROOT = resolve(__dirname, '../../..');
const WEB = join(ROOT, 'apps/console/web');
export const WEB_DIST = join(ROOT, 'dist/console-web');

/**
 * Makes sure dist/console-web holds a build of the current web sources (a fresh clone after
 * `npm ci` has none): builds it with Vite when it is missing or older than a source file.
 */
export function ensureWebBuild(): void {
  const index = join(WEB_DIST, 'index.html');
  if (existsSync(index) && statSync(index).mtimeMs >= newestMtime(WEB)) return;
  const started = Date.now();
  execFileSync(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--config', join(WEB, 'vite.config.ts'), '--logLevel', 'warn'], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
    timeout: 120_000,
  });
  console.log(`[browser] built the web console in ${Date.now() - started} ms`);
}
