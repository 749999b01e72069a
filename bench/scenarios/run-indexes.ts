import { openDatabase } from '@baton/persistence';
import { cpuSeconds, machine, writeResult } from '../support/infra';
import { PeerServer } from '../support/peers/private-server';
import { option, type Scenario } from '../support/scenario';
import { table } from '../support/table';

/**
 * What the runs table's secondary indexes cost MariaDB per run (issue 38: MariaDB's share of a
 * batched run, 0.27–0.66 ms, against 0.04–0.07 for the on-demand floor's two-index table).
 * On a private MariaDB migrated to the current schema, each variant is a copy of `runs`
 * (CREATE TABLE … LIKE runs) with some indexes dropped, through which `--runs` runs go the life of
 * a short on-demand run, 100 at a time as a batch is: one multi-row INSERT (PENDING), one UPDATE to
 * DISPATCHED and one to SUCCEEDED, setting the columns the engine sets. MariaDB's CPU (its
 * process's, from /proc) per run, for every index set; the variants take turns, `--rounds` times,
 * and the median is printed. An index whose columns an UPDATE changes is rewritten by it (the old
 * entry delete-marked, a new one inserted, the old one purged later); the others cost only the
 * INSERT.
 */

/** The indexes a run's state change rewrites: each holds `state`, or `finished_at`. */
const MOVING = ['ix_runs_lease', 'ix_runs_tenant_finished', 'ix_runs_tenant_filter', 'ix_runs_task_filter', 'ix_runs_parent', 'ix_runs_claim', 'ix_runs_deadline', 'ix_runs_key', 'ix_runs_late'];
/** Those only an INSERT writes. */
const STILL = ['uq_runs_task_fire_key', 'ix_runs_tenant_time', 'ix_runs_task_time', 'ix_runs_flow'];
const BATCH = 100;

interface Variant {
  name: string;
  drop: string[];
  /** Statements run on runs_variant after the drops (a variant's own indexes). */
  add?: string[];
}

/**
 * A generated column that is `state` only while an index's scans can want the run, NULL otherwise:
 * InnoDB rewrites an index entry only when its key's value changes, so a run moving between two
 * states its index does not serve (or a run without a parent, or a key) leaves that entry alone.
 */
const projected = (column: string, when: string) => `ADD COLUMN ${column} VARCHAR(16) AS (CASE WHEN ${when} THEN state END) VIRTUAL`;
const PROJECTED: string[] = [
  `ALTER TABLE runs_variant ${projected('parent_state', 'parent_run_id IS NOT NULL')}, ${projected('key_state', 'key_scope IS NOT NULL')}, ${projected('claim_state', "state IN ('PENDING', 'COALESCING')")}, ${projected('late_state', "state IN ('PENDING', 'CLAIMED', 'RETRY_WAIT')")}`,
  'CREATE INDEX ix_runs_parent ON runs_variant (parent_run_id, parent_state)',
  'CREATE INDEX ix_runs_key ON runs_variant (key_state, tenant_id, key_scope, run_key)',
  'CREATE INDEX ix_runs_claim ON runs_variant (engine_group, claim_state, tenant_id, due_at, priority DESC)',
  'CREATE INDEX ix_runs_late ON runs_variant (engine_group, late_state, late_alarmed_at, late_from_at, scheduled_at)',
];

const VARIANTS: Variant[] = [
  { name: 'all indexes (the schema)', drop: [] },
  ...MOVING.map((index) => ({ name: `all but ${index}`, drop: [index] })),
  { name: 'none of the 9 a state change rewrites', drop: MOVING },
  { name: 'parent, key, claim, late on projected states', drop: ['ix_runs_parent', 'ix_runs_key', 'ix_runs_claim', 'ix_runs_late'], add: PROJECTED },
  { name: 'primary key only', drop: [...MOVING, ...STILL] },
];

export const runIndexes: Scenario = {
  name: 'run-indexes',
  description: "MariaDB CPU per run for the runs table's secondary indexes: a batched run's INSERT and two state UPDATEs through copies of `runs` with indexes dropped",
  standalone: true,
  quickSet: false,
  options: [
    ['--runs=30000', 'runs through each variant a round'],
    ['--rounds=3', 'turns of every variant (the median is printed)'],
    ['--mariadb-port=19941', 'the private MariaDB (scripts/mariadb.sh)'],
    ['--tag=-x', 'result file suffix: bench/results/run-indexes-x.json'],
  ]
    .map(([flag, what]) => `${flag.padEnd(24)} ${what}`)
    .join('\n'),
  async run({ args, log }) {
    const runs = Number(option(args, 'runs') ?? 30_000);
    const rounds = Number(option(args, 'rounds') ?? 3);
    const server = PeerServer.start('mariadb', Number(option(args, 'mariadb-port') ?? 19941));
    try {
      // The development database scripts/mariadb.sh makes on its first start, migrated to the current schema.
      const ds = await openDatabase(`${server.url.replace(/\/$/, '')}/baton`);
      const msPerRun = new Map<string, number[]>(VARIANTS.map((v) => [v.name, []]));
      try {
        for (let round = 1; round <= rounds; round++) {
          for (const variant of VARIANTS) {
            await ds.query('DROP TABLE IF EXISTS runs_variant');
            await ds.query('CREATE TABLE runs_variant LIKE runs');
            for (const index of variant.drop) await ds.query(`ALTER TABLE runs_variant DROP INDEX ${index}`);
            for (const statement of variant.add ?? []) await ds.query(statement);
            const before = cpuSeconds(server.pid);
            await lifecycles(ds, runs);
            const ms = ((cpuSeconds(server.pid) - before) * 1000) / runs;
            msPerRun.get(variant.name)!.push(ms);
            log(`  round ${round}: ${variant.name}: ${ms3(ms)} ms a run`);
          }
        }
      } finally {
        await ds.query('DROP TABLE IF EXISTS runs_variant').catch(() => undefined);
        await ds.destroy();
      }
      const all = median(msPerRun.get(VARIANTS[0].name)!);
      const rows = VARIANTS.map((v) => {
        const m = median(msPerRun.get(v.name)!);
        return [v.name, ms3(m), v.drop.length ? ms3(all - m) : '', `${Math.round((100 * m) / all)} %`];
      });
      console.log(`\nRun indexes — MariaDB CPU per run (INSERT, DISPATCHED, SUCCEEDED; ${BATCH} a statement; median of ${rounds} rounds of ${runs} runs)\n${table(['variant', 'ms a run', 'saved', 'of all'], rows)}\n`);
      writeResult(`run-indexes${option(args, 'tag') ?? ''}.json`, { benchmark: 'run-indexes', machine: machine(), plan: { runs, rounds, batch: BATCH }, msPerRun: Object.fromEntries(msPerRun) });
      return [
        ['run-indexes all', `${ms3(all)} ms of MariaDB a run`],
        ['run-indexes none rewritten', `${ms3(median(msPerRun.get(VARIANTS.find((v) => v.drop === MOVING)!.name)!))} ms`],
      ];
    } finally {
      server.stop();
    }
  },
};

/** `n` runs through runs_variant as batches of BATCH go: INSERT PENDING, UPDATE to DISPATCHED, UPDATE to SUCCEEDED. */
async function lifecycles(ds: { query: (sql: string, params?: unknown[]) => Promise<unknown> }, n: number): Promise<void> {
  const now = Date.now();
  const ids = (first: number) => Array.from({ length: BATCH }, (_, j) => first + j);
  for (let done = 0; done < n; done += BATCH) {
    const values = Array.from({ length: BATCH }, () => "('t1', ?, 'default', 'PENDING', 'MANUAL', ?, 1, 0, '{\"k\":1}', ?, ?, ?, ?)").join(', ');
    const params = Array.from({ length: BATCH }, (_, j) => [1 + ((done + j) % 8), `m:${now}-${done + j}`, now, now, now, now]).flat();
    const inserted = (await ds.query(`INSERT INTO runs_variant (tenant_id, task_id, engine_group, state, cause, fire_key, attempt, priority, params, scheduled_at, due_at, created_at, updated_at) VALUES ${values}`, params)) as { insertId: number };
    const batch = ids(Number(inserted.insertId));
    const inList = batch.map(() => '?').join(', ');
    await ds.query(
      `UPDATE runs_variant SET state = 'DISPATCHED', claimed_by = 'engine-1', lease_until = ?, executor_id = 1, deadline_at = ?, dispatched_at = ?, first_dispatched_at = ?, accepted_at = NULL, updated_at = ? WHERE id IN (${inList}) AND state = 'PENDING'`,
      [now + 30_000, now + 60_000, now, now, now, ...batch],
    );
    await ds.query(
      `UPDATE runs_variant SET state = 'SUCCEEDED', result = '{}', error = NULL, started_at = ?, accepted_at = ?, finished_at = ?, deadline_at = NULL, updated_at = ? WHERE id IN (${inList}) AND state = 'DISPATCHED'`,
      [now, now, now, now, ...batch],
    );
  }
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** Milliseconds to 3 places: an index costs hundredths of a millisecond a run. */
function ms3(n: number): string {
  return n.toFixed(3);
}
