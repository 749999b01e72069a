import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../test/cluster/support/processes';
import { caseLabel, vsHeap, type Row } from '../queue/report';
import { RESULTS_DIR } from '../support/infra';
import type { Scenario } from '../support/scenario';

/**
 * The calendar-queue micro-benchmark (bench/queue) as a scenario. It runs in a child process:
 * `node --expose-gc` (forced GC between runs, which the runner's process cannot do) on the
 * tsc-compiled code (what prod runs), the same command as `npm run bench:queue`. The child
 * prints the table and writes bench/results/queue.json and queue.svg; this reads the JSON back
 * for the runner's summary. Options passed through: --cases=N:dist,… --reps=k --only=a,b.
 */
const OPTIONS = ['--cases=', '--reps=', '--only='];

export const queue: Scenario = {
  name: 'queue',
  description: 'calendar queue: PRAM vs naive calendar queue vs binary heap, hold model, 10k–1M events, uniform/bursty (ops/s, resizes)',
  standalone: true,
  async run({ full, args, log }) {
    log('queue: compiling bench/queue (tsc -p bench/queue/tsconfig.json)');
    execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'bench/queue/tsconfig.json'], { cwd: ROOT, stdio: 'inherit' });
    const childArgs = [...(full ? ['--full'] : []), ...args.filter((a) => OPTIONS.some((o) => a.startsWith(o)))];
    log(`queue: node --expose-gc queue-bench.js ${childArgs.join(' ')}`);
    const child = spawn(process.execPath, ['--expose-gc', 'dist/bench-queue/bench/queue/queue-bench.js', ...childArgs], { cwd: ROOT, stdio: 'inherit' });
    const code = await new Promise<number | null>((resolve, reject) => child.once('error', reject).once('exit', resolve));
    if (code !== 0) throw new Error(`queue benchmark exited with code ${code}`);
    const rows = (JSON.parse(readFileSync(join(RESULTS_DIR, 'queue.json'), 'utf8')) as { results: Row[] }).results;
    return rows
      .filter((r) => r.structure === 'pram-cq')
      .map((r): [string, string] => {
        const naive = rows.find((x) => x.n === r.n && x.distribution === r.distribution && x.structure === 'naive-cq');
        const ratio = (k: 'totalOpsPerSec' | 'holdOpsPerSec') => `${vsHeap(rows, r, k).toFixed(2)}×`;
        return [
          `queue ${caseLabel(r)}`,
          `PRAM ${(r.totalOpsPerSec / 1e6).toFixed(2)} M ops/s = ${ratio('totalOpsPerSec')} the heap (hold ${ratio('holdOpsPerSec')}); resizes PRAM ${r.resizes} / naive ${naive?.resizes ?? '-'}`,
        ];
      });
  },
};
