import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from '../test/cluster/support/processes';
import { RESULTS_DIR } from './support/infra';
import { table } from './support/table';

/**
 * Summarises the engines' V8 CPU profiles written by `npm run bench -- burst --profile`
 * (bench/results/profiles/*.cpuprofile): self time by package / source area and the top
 * functions. `node -r ./bench/register.cjs bench/profile-summary.ts [dir]`.
 */
interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

function area(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1];
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const rel = relative(ROOT, url.replace(/^file:\/\//, ''));
  const m = /^(apps\/[^/]+\/src\/[^/]+|libs\/[^/]+\/src\/[^/]+)/.exec(rel);
  return m ? m[1] : rel;
}

const dir = process.argv[2] ?? join(RESULTS_DIR, 'profiles');
const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
const byArea = new Map<string, number>();
const byFn = new Map<string, number>();
let total = 0;
for (const f of files) {
  const p = JSON.parse(readFileSync(join(dir, f), 'utf8')) as Profile;
  const nodes = new Map(p.nodes.map((n) => [n.id, n]));
  p.samples.forEach((id, i) => {
    const n = nodes.get(id)!;
    const us = p.timeDeltas[i] ?? 0;
    if (n.callFrame.functionName === '(idle)') return;
    total += us;
    const a = area(n.callFrame.url, n.callFrame.functionName);
    byArea.set(a, (byArea.get(a) ?? 0) + us);
    const fn = `${n.callFrame.functionName || '(anonymous)'} ${a}:${n.callFrame.lineNumber + 1}`;
    byFn.set(fn, (byFn.get(fn) ?? 0) + us);
  });
}
const top = (m: Map<string, number>, k: number) =>
  [...m.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, k)
    .map(([name, us]) => [name, +(us / 1000).toFixed(0), +((100 * us) / total).toFixed(1)]);
console.log(`${files.length} profile(s), ${(total / 1e6).toFixed(2)} s of non-idle CPU samples\n`);
console.log(`Self time by area\n${table(['area', 'ms', '%'], top(byArea, 25))}\n`);
console.log(`Top functions (self time)\n${table(['function', 'ms', '%'], top(byFn, 30))}`);
