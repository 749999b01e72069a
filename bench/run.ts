import { stopAllProcesses } from '../test/cluster/support/processes';
import { SCENARIOS } from './scenarios';
import { acquireInfra, type Infra } from './support/infra';
import { table } from './support/table';

/**
 * `npm run bench` (quick set, < 10 min) / `npm run bench -- --full` / `npm run bench -- burst
 * faults` (chosen scenarios) / `npm run bench -- --help` (`-- peers --help`: one scenario's options). Each scenario (bench/scenarios/index.ts)
 * starts what it needs (the private MariaDB via scripts/mariadb.sh, ActiveMQ via
 * scripts/activemq.sh, engine and demo-executor processes through test/cluster/support), prints
 * its tables, writes bench/results/<scenario>*.json and .svg, and stops only what it started.
 */
/** What a standalone scenario is given instead of the servers it does not use. */
const NO_INFRA: Infra = { mysqlUrl: '', mariadbPid: null, release: () => undefined };

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes('--help')) {
    const named = SCENARIOS.filter((s) => args.includes(s.name));
    if (named.length) {
      for (const s of named) console.log(`npm run bench -- ${s.name} [--full] [options]\n\n${s.description}\n\n${s.options ?? 'No options.'}\n`);
      return;
    }
    console.log(`npm run bench [-- [--full] [scenario …] [scenario options]]\n\n${table(['scenario', 'what it measures'], SCENARIOS.map((s) => [s.name, s.description]))}`);
    return;
  }
  const full = args.includes('--full');
  const picked = args.filter((a) => !a.startsWith('--'));
  for (const p of picked) if (!SCENARIOS.some((s) => s.name === p)) throw new Error(`unknown scenario "${p}" (known: ${SCENARIOS.map((s) => s.name).join(', ')})`);
  // Named, a scenario runs; unnamed, the quick set leaves out those that are not in it (--full runs all).
  const scenarios = picked.length ? SCENARIOS.filter((s) => picked.includes(s.name)) : SCENARIOS.filter((s) => full || s.quickSet !== false);
  const started = Date.now();
  const log = (s: string) => console.log(`[bench +${((Date.now() - started) / 1000).toFixed(0)}s] ${s}`);
  log(`${full ? 'full' : 'quick'} run: ${scenarios.map((s) => s.name).join(', ')}`);
  // Taken once the first scenario that needs them starts: a standalone one waits for nobody.
  let infra: Infra | null = null;
  const onSignal = () => {
    void stopAllProcesses().finally(() => {
      infra?.release();
      process.exit(130);
    });
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const summary: Array<[string, string]> = [];
  try {
    for (const s of scenarios) {
      const t0 = Date.now();
      const standalone = typeof s.standalone === 'function' ? s.standalone(args) : s.standalone;
      if (!standalone) infra ??= await acquireInfra(log);
      summary.push(...(await s.run({ full, args, infra: infra ?? NO_INFRA, log })));
      log(`${s.name}: done in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    }
  } finally {
    await stopAllProcesses();
    (infra as Infra | null)?.release();
  }
  console.log(`\nSummary (${((Date.now() - started) / 60000).toFixed(1)} min; JSON and SVG under bench/results/)\n${table(['case', 'figures'], summary)}`);
}

main().catch(async (err: Error) => {
  console.error(err.stack ?? err.message);
  await stopAllProcesses();
  process.exit(1);
});
