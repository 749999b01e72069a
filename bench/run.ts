import { burstScenario } from './scenarios/burst';
import { slotHoldScenario } from './scenarios/slot-hold';
import { stopAllProcesses } from '../test/cluster/support/processes';
import { acquireInfra, RESULTS_DIR } from './support/infra';
import { table } from './support/table';

/**
 * `npm run bench` (quick, < 10 min) / `npm run bench -- --full` / `npm run bench -- burst` (one
 * scenario). Each scenario starts what it needs (the private MariaDB via scripts/mariadb.sh,
 * engine and demo-executor processes through test/cluster/support), prints its tables, writes
 * bench/results/<scenario>.json and .svg, and stops only what it started. The calendar-queue
 * benchmark is `npm run bench:queue` (bench/queue).
 *
 * Burst options: `--cases=1000x2,4000x2` (N x engines), `--profile` (engines run with
 * the V8 profiler, bench/support/cpu-profile.cjs; profiles under bench/results/profiles, see bench/profile-summary.ts), `--tag=-x`
 * (result file suffix), `--engine-env=BATON_MAX_HELD=1000,…` (extra engine settings).
 */
const SCENARIOS = ['burst', 'slot-hold'] as const;
type Scenario = (typeof SCENARIOS)[number];

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const full = args.includes('--full');
  const picked = args.filter((a) => !a.startsWith('--')) as Scenario[];
  for (const p of picked) if (!SCENARIOS.includes(p)) throw new Error(`unknown scenario "${p}" (known: ${SCENARIOS.join(', ')})`);
  const scenarios = picked.length ? picked : [...SCENARIOS];
  const started = Date.now();
  const log = (s: string) => console.log(`[bench +${((Date.now() - started) / 1000).toFixed(0)}s] ${s}`);
  log(`${full ? 'full' : 'quick'} run: ${scenarios.join(', ')}`);
  const infra = await acquireInfra(log);
  const onSignal = () => {
    void stopAllProcesses().finally(() => {
      infra.release();
      process.exit(130);
    });
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const summary: string[][] = [];
  try {
    for (const s of scenarios) {
      if (s === 'burst') {
        const casesArg = args.find((a) => a.startsWith('--cases='));
        const cases = casesArg?.slice('--cases='.length).split(',').map((c) => c.split('x').map(Number) as [number, number]);
        const profile = args.includes('--profile');
        const tag = args.find((a) => a.startsWith('--tag='))?.slice('--tag='.length) ?? (profile ? '-profile' : cases ? '-custom' : full ? '' : '');
        const engineEnv: Record<string, string> = profile ? { NODE_OPTIONS: `-r ${RESULTS_DIR}/../support/cpu-profile.cjs`, BENCH_PROFILE_DIR: `${RESULTS_DIR}/profiles` } : {};
        for (const kv of args.find((a) => a.startsWith('--engine-env='))?.slice('--engine-env='.length).split(',') ?? []) {
          const [k, ...v] = kv.split('=');
          engineEnv[k] = v.join('=');
        }
        const r = await burstScenario({ full, cases, engineEnv, tag }, infra, log);
        for (const row of r.summary) summary.push([`burst N=${row[0]} ${row[1]}e`, `dispatch p99 ${row[3]} ms, callback p99 ${row[5]} ms, makespan ${row[6]} ms, dup ${row[8]}, missing ${row[9]}`]);
      } else if (s === 'slot-hold') {
        const r = await slotHoldScenario(full, infra, log);
        for (const row of r) summary.push([`slot-hold ${row[0]}`, row[1]]);
      }
    }
  } finally {
    await stopAllProcesses();
    infra.release();
  }
  console.log(`\nSummary (${((Date.now() - started) / 60000).toFixed(1)} min; JSON and SVG under bench/results/)\n${table(['case', 'figures'], summary)}`);
}

main().catch(async (err: Error) => {
  console.error(err.stack ?? err.message);
  await stopAllProcesses();
  process.exit(1);
});
