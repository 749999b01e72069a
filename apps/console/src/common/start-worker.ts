import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts the worker thread whose entry is `<dir>/<name>.worker.js` (the build) or, run from the
 * TypeScript sources (vitest; `npm run bench`), `<dir>/<name>.worker.ts` — which a worker's Node
 * cannot load by itself: it compiles it with the repo's SWC hook, as the tests' executor processes do.
 */
export function startWorker(dir: string, name: string, options: WorkerOptions): Worker {
  if (!__filename.endsWith('.ts')) return new Worker(join(dir, `${name}.worker.js`), options);
  const hook = join(__dirname, '../../../../test/protocol/register-ts.cjs');
  // The hook's SWC is a native addon: loaded by a worker alone, it is unloaded when that worker is
  // terminated, and the next worker to load it crashes the process (Node 20). Loaded here, it stays.
  createRequire(hook)('@swc/core');
  const entry = join(dir, `${name}.worker.ts`);
  return new Worker(`require(${JSON.stringify(hook)}); require(${JSON.stringify(entry)});`, { ...options, eval: true });
}
