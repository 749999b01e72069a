import { ManualClock } from '@baton/domain';
import { openDatabase } from '@baton/persistence';
import { claimSide, insertTask, insertUpExecutor, T0, testConfig } from '../../apps/engine/src/testing/engine-test-kit';
import { createMysqlTestDatabase, dropMysqlDatabase, mysqlDatabaseUrl } from '../../test/support/mysql-admin';
import { writeResult } from '../support/infra';
import type { Scenario } from '../support/scenario';
import { table } from '../support/table';

/** Due runs in every case, spread evenly over its tenants. */
const RUNS = 20_000;

interface CaseResult {
  tenants: number;
  runs: number;
  turns: number;
  claimMs: number;
  msPer1000Runs: number;
  /** One idle round (nothing due; median of 5): the turns it takes and their time. */
  idleTurns: number;
  idleRoundMs: number;
}

/**
 * The claim's cost by number of tenants (issue 20 item 1): 20,000 due runs on MariaDB, all of one
 * tenant, or spread over 100 or 1,000 tenants that all have due work, claimed by one engine's
 * ClaimerService (the real claim turns: fair shares, one UNION statement of ranges per turn)
 * until none is left; then idle rounds (median of 5, after InnoDB's purge). Every tenant has an executor with room for all its
 * runs, so only the turns' structure limits the claim. Reports ms per 1,000 runs claimed: flat
 * from 1 to 1,000 tenants is the target.
 */
export const claimTenants: Scenario = {
  name: 'claim-tenants',
  description: 'the claim’s cost per run with 1, 100 and 1,000 tenants all due (20,000 runs, MariaDB, one engine’s claimer)',
  async run({ infra, log }) {
    const results: CaseResult[] = [];
    for (const tenants of [1, 100, 1000]) {
      const name = await createMysqlTestDatabase(infra.mysqlUrl);
      const ds = await openDatabase(mysqlDatabaseUrl(infra.mysqlUrl, name));
      try {
        log(`claim-tenants: ${tenants} tenant(s), seeding…`);
        const ids = Array.from({ length: tenants }, (_, i) => `t${String(i).padStart(4, '0')}`);
        const taskOf = new Map<string, number>();
        for (const id of ids) {
          taskOf.set(id, await insertTask(ds, { trigger: { kind: 'MANUAL' }, tenantId: id, name: 'job', executorApp: 'billing' }));
          await insertUpExecutor(ds, id, RUNS);
        }
        for (let from = 0; from < RUNS; from += 2000) {
          const values: string[] = [];
          for (let i = from; i < Math.min(RUNS, from + 2000); i++) {
            const t = ids[i % tenants];
            values.push(`('${t}', ${taskOf.get(t)}, 'default', 'PENDING', 'SCHEDULE', 'c:${i}', 1, 0, '{}', ${T0 - RUNS + i}, ${T0 - RUNS + i}, ${T0}, ${T0})`);
          }
          await ds.query(
            `INSERT INTO runs (tenant_id, task_id, engine_group, state, cause, fire_key, attempt, priority, params, scheduled_at, due_at, created_at, updated_at) VALUES ${values.join(',')}`,
          );
        }
        await ds.query('ANALYZE TABLE runs');
        const { claimer, queue } = claimSide(ds, testConfig({ maxHeld: 100_000 }), new ManualClock(T0));
        let turns = 0;
        const t0 = performance.now();
        while (queue.runs.length < RUNS) {
          await claimer.claimOnce();
          if (++turns > 10_000) throw new Error(`claim-tenants: ${queue.runs.length} of ${RUNS} claimed after 10,000 turns`);
        }
        const claimMs = performance.now() - t0;
        // InnoDB purges the claimed runs' old index entries in the background; until it has, an
        // empty range still steps over them. An engine's idle rounds come after that: wait for it.
        await new Promise((r) => setTimeout(r, 5_000));
        const rounds: Array<{ turns: number; ms: number }> = [];
        for (let round = 0; round < 5; round++) {
          let turns = 0;
          const t1 = performance.now();
          for (let full = true; full; turns++) full = (await claimer.claimOnce()).full;
          rounds.push({ turns, ms: performance.now() - t1 });
        }
        rounds.sort((a, b) => a.ms - b.ms);
        const { turns: idleTurns, ms: idleRoundMs } = rounds[2];
        const r = { tenants, runs: RUNS, turns, claimMs: Math.round(claimMs), msPer1000Runs: +((claimMs / RUNS) * 1000).toFixed(1), idleTurns, idleRoundMs: +idleRoundMs.toFixed(1) };
        log(`claim-tenants: ${tenants} tenant(s): ${r.turns} turns, ${r.claimMs} ms, ${r.msPer1000Runs} ms per 1,000 runs; idle round ${idleTurns} turn(s), ${r.idleRoundMs} ms`);
        results.push(r);
      } finally {
        await ds.destroy();
        await dropMysqlDatabase(infra.mysqlUrl, name);
      }
    }
    console.log(
      `\nClaim cost by number of tenants — ${RUNS.toLocaleString('en')} due runs, one engine, MariaDB\n` +
        table(
          ['tenants', 'turns', 'claim ms', 'ms / 1,000 runs', 'idle round: turns', 'idle round ms'],
          results.map((r) => [String(r.tenants), String(r.turns), String(r.claimMs), String(r.msPer1000Runs), String(r.idleTurns), String(r.idleRoundMs)]),
        ),
    );
    writeResult('claim-tenants', { results });
    return results.map((r): [string, string] => [`claim-tenants: ${r.tenants} tenant(s)`, `${r.msPer1000Runs} ms per 1,000 runs claimed (${r.turns} turns); idle round ${r.idleRoundMs} ms`]);
  },
};
