import type { DataSource } from 'typeorm';
import { openDatabase } from '@baton/persistence';
import { percentile } from '../../test/cluster/support/figures';
import { createMysqlTestDatabase, dropMysqlDatabase, mysqlDatabaseUrl } from '../../test/support/mysql-admin';
import { cpuSeconds, machine, writeResult } from '../support/infra';
import { option, type Scenario } from '../support/scenario';
import { table } from '../support/table';

/**
 * What a run's four state changes cost MariaDB, and how much of it is index upkeep (issue 22):
 * `--runs` PENDING rows (default 20,000), then CLAIMED, DISPATCHED, ACCEPTED and SUCCEEDED written
 * as the engine writes them — primary-key UPDATEs of 100 runs — and mariadbd's CPU over those
 * UPDATEs only (/proc), per run. Each variant gets a fresh, migrated database; the variants are
 * alternated `--rounds` times (default 3) so that a busy spell of the machine falls on all of them.
 *
 * Variants (`--variants=`, default all):
 * - `shipped`: the schema as migrated.
 * - `phase`: a "phase" in place of `state` in four indexes, as VIRTUAL generated columns that
 *   stay the same across most changes (InnoDB rewrites an index entry only when one of its
 *   columns changes): ix_runs_parent on IF(parent_run_id IS NULL, NULL, state) — a root run's
 *   entry never moves —, ix_runs_late on a waiting flag (PENDING, CLAIMED, RETRY_WAIT), the two
 *   console filter indexes on state with CLAIMED/DISPATCHED/ACCEPTED folded into one RUNNING.
 *   Not shipped: what it would save, before its queries are rewritten.
 * - `without`: those four indexes dropped — a floor, not a schema (their queries would scan).
 *
 * And a run's whole life in MariaDB — its insert, its four changes, its end — (`--variants=live`,
 * two workloads alternated, the insert inside the measured window):
 * - `life-shipped`: INSERT into `runs` (500 a statement, as the planner writes), then the four
 *   changes of 100.
 * - `life-live`: the narrow table of live runs the figures point at — `live_runs` with
 *   the queue's columns and only the claim, lease, deadline and late indexes — takes the insert
 *   and the first three changes; the end writes the finished row into `runs` (all its indexes,
 *   once) and deletes the live one, in one transaction of 100. What it would save, before any
 *   query is moved to it.
 */
export const stateChanges: Scenario = {
  name: 'state-changes',
  description: "MariaDB CPU of a run's four state changes (primary-key UPDATEs of 100) on the shipped schema and on index variants: what index upkeep costs",
  options: '--runs=20000 --rounds=3 --variants=shipped,phase,without (or live: life-shipped,life-live) --tag=…',
  quickSet: false,
  async run({ args, infra, log }) {
    const runs = Number(option(args, 'runs') ?? 20_000);
    const rounds = Number(option(args, 'rounds') ?? 3);
    const chosen = option(args, 'variants') ?? Object.keys(VARIANTS).join(',');
    const variants = chosen === 'live' ? Object.keys(LIFECYCLES) : chosen.split(',');
    const known = [...Object.keys(VARIANTS), ...Object.keys(LIFECYCLES)];
    for (const v of variants) if (!known.includes(v)) throw new Error(`--variants: unknown variant "${v}" (known: ${known.join(', ')}, or live for the lifecycles)`);
    if (!infra.mariadbPid) throw new Error("state-changes measures mariadbd's CPU: its pid is unknown (BENCH_MARIADB_PID names a server started elsewhere)");
    const perRun: Record<string, number[]> = Object.fromEntries(variants.map((v) => [v, []]));
    for (let round = 1; round <= rounds; round++) {
      for (const variant of variants) {
        const ms = variant in LIFECYCLES ? await measureLifecycle(infra.mysqlUrl, infra.mariadbPid, variant, runs) : await measure(infra.mysqlUrl, infra.mariadbPid, variant, runs);
        perRun[variant].push(ms);
        log(`state-changes round ${round} ${variant}: ${ms.toFixed(3)} ms of MariaDB CPU per run`);
      }
    }
    const base = perRun.shipped ?? perRun['life-shipped'];
    const shipped = base ? percentile(base, 50) : null;
    const rows = variants.map((v) => {
      const median = percentile(perRun[v], 50);
      return [v, perRun[v].map((x) => x.toFixed(3)).join(' · '), median.toFixed(3), shipped ? `${(((median - shipped) / shipped) * 100).toFixed(0)} %` : '–'];
    });
    const what = chosen === 'live' ? "a run's life (insert, 4 changes, end)" : '4 state changes';
    console.log(`\nMariaDB CPU per run, ${what}, ${runs} runs, ${rounds} alternated rounds (ms)\n${table(['variant', 'rounds', 'median', 'vs shipped'], rows)}`);
    writeResult(`state-changes${option(args, 'tag') ?? ''}.json`, { benchmark: 'state-changes', machine: machine(), runs, rounds, perRun });
    return rows.map((r): [string, string] => [`state-changes ${r[0]}`, `median ${r[2]} ms per run (${r[3]})`]);
  },
};

/** How each variant changes the migrated schema. */
const VARIANTS: Record<string, string[]> = {
  shipped: [],
  phase: [
    `ALTER TABLE runs
       ADD COLUMN shard_state VARCHAR(16) AS (IF(parent_run_id IS NULL, NULL, state)) VIRTUAL,
       ADD COLUMN waiting TINYINT AS (IF(state IN ('PENDING', 'CLAIMED', 'RETRY_WAIT'), 1, NULL)) VIRTUAL,
       ADD COLUMN phase VARCHAR(16) AS (IF(state IN ('CLAIMED', 'DISPATCHED', 'ACCEPTED'), 'RUNNING', state)) VIRTUAL`,
    `ALTER TABLE runs
       DROP INDEX ix_runs_parent, ADD INDEX ix_runs_parent (parent_run_id, shard_state),
       DROP INDEX ix_runs_late, ADD INDEX ix_runs_late (engine_group, waiting, late_alarmed_at, scheduled_at),
       DROP INDEX ix_runs_task_filter, ADD INDEX ix_runs_task_filter (task_id, phase, cause, scheduled_at),
       DROP INDEX ix_runs_tenant_filter, ADD INDEX ix_runs_tenant_filter (tenant_id, phase, cause, scheduled_at)`,
  ],
  without: ['ALTER TABLE runs DROP INDEX ix_runs_parent, DROP INDEX ix_runs_late, DROP INDEX ix_runs_task_filter, DROP INDEX ix_runs_tenant_filter'],
};

const T0 = 1_800_000_000_000;

/** A run's four changes, as the engine's statements set them. */
const CHANGES = [
  `state = 'CLAIMED', claimed_by = 'engine-1', lease_until = ${T0 + 15_000}, updated_at = ${T0 + 1}`,
  `state = 'DISPATCHED', executor_id = 3, deadline_at = ${T0 + 60_000}, dispatched_at = ${T0 + 2}, updated_at = ${T0 + 2}`,
  `state = 'ACCEPTED', accepted_at = ${T0 + 3}, deadline_at = ${T0 + 60_003}, updated_at = ${T0 + 3}`,
  `state = 'SUCCEEDED', finished_at = ${T0 + 4}, claimed_by = NULL, lease_until = NULL, updated_at = ${T0 + 4}`,
];

async function measure(serverUrl: string, mariadbPid: number, variant: string, runs: number): Promise<number> {
  const name = await createMysqlTestDatabase(serverUrl);
  let ds: DataSource | undefined;
  try {
    ds = await openDatabase(mysqlDatabaseUrl(serverUrl, name));
    for (const statement of VARIANTS[variant]) await ds.query(statement);
    for (let i = 0; i < runs; i += 1000) {
      const values = Array.from({ length: Math.min(1000, runs - i) }, (_, j) => {
        const n = i + j;
        return `('bench', ${1 + (n % 50)}, 'default', 'PENDING', 'SCHEDULE', 'f:${n}', 1, 0, '{}', ${T0 + n}, ${T0 + n}, ${T0}, ${T0})`;
      });
      await ds.query(
        `INSERT INTO runs (tenant_id, task_id, engine_group, state, cause, fire_key, attempt, priority, params, scheduled_at, due_at, created_at, updated_at) VALUES ${values.join(',')}`,
      );
    }
    const ids = ((await ds.query('SELECT id FROM runs ORDER BY id')) as Array<{ id: number | string }>).map((r) => Number(r.id));
    const before = cpuSeconds(mariadbPid);
    for (const change of CHANGES) {
      for (let i = 0; i < ids.length; i += 100) await ds.query(`UPDATE runs SET ${change} WHERE id IN (${ids.slice(i, i + 100).join(',')})`);
    }
    return ((cpuSeconds(mariadbPid) - before) * 1000) / ids.length;
  } finally {
    await ds?.destroy();
    await dropMysqlDatabase(serverUrl, name);
  }
}

/** The whole-life workloads: the table a run is inserted into and changed in, and how it ends. */
const LIFECYCLES: Record<string, { setup: string[]; table: string; end: (ids: string) => string[] }> = {
  'life-shipped': { setup: [], table: 'runs', end: (ids) => [`UPDATE runs SET ${CHANGES[3]} WHERE id IN (${ids})`] },
  'life-live': {
    setup: [
      `CREATE TABLE live_runs (
         id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, tenant_id VARCHAR(64) NOT NULL, task_id BIGINT NOT NULL, engine_group VARCHAR(64) NOT NULL,
         state VARCHAR(16) NOT NULL, cause VARCHAR(16) NOT NULL, fire_key VARCHAR(128) NOT NULL, attempt INT NOT NULL, priority INT NOT NULL,
         params TEXT NULL, scheduled_at BIGINT NOT NULL, due_at BIGINT NOT NULL, claimed_by VARCHAR(128) NULL, lease_until BIGINT NULL,
         executor_id BIGINT NULL, deadline_at BIGINT NULL, dispatched_at BIGINT NULL, accepted_at BIGINT NULL, late_alarmed_at BIGINT NULL,
         created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL,
         UNIQUE KEY uq_live_task_fire_key (task_id, fire_key),
         KEY ix_live_claim (engine_group, state, tenant_id, due_at, priority),
         KEY ix_live_lease (state, claimed_by, lease_until),
         KEY ix_live_deadline (engine_group, state, deadline_at, executor_id),
         KEY ix_live_late (engine_group, state, late_alarmed_at, scheduled_at))`,
    ],
    table: 'live_runs',
    end: (ids) => [
      `INSERT INTO runs (id, tenant_id, task_id, engine_group, state, cause, fire_key, attempt, priority, params, scheduled_at, due_at, executor_id,
         deadline_at, dispatched_at, accepted_at, finished_at, created_at, updated_at)
       SELECT id, tenant_id, task_id, engine_group, 'SUCCEEDED', cause, fire_key, attempt, priority, params, scheduled_at, due_at, executor_id,
         deadline_at, dispatched_at, accepted_at, ${T0 + 4}, created_at, ${T0 + 4} FROM live_runs WHERE id IN (${ids})`,
      `DELETE FROM live_runs WHERE id IN (${ids})`,
    ],
  },
};

/** A run's whole life on one of LIFECYCLES: inserted 500 a statement, three changes of 100, then its end (one transaction of 100). */
async function measureLifecycle(serverUrl: string, mariadbPid: number, variant: string, runs: number): Promise<number> {
  const life = LIFECYCLES[variant];
  const name = await createMysqlTestDatabase(serverUrl);
  let ds: DataSource | undefined;
  try {
    ds = await openDatabase(mysqlDatabaseUrl(serverUrl, name));
    for (const statement of life.setup) await ds.query(statement);
    const before = cpuSeconds(mariadbPid);
    for (let i = 0; i < runs; i += 500) {
      const values = Array.from({ length: Math.min(500, runs - i) }, (_, j) => {
        const n = i + j;
        return `('bench', ${1 + (n % 50)}, 'default', 'PENDING', 'SCHEDULE', 'f:${n}', 1, 0, '{}', ${T0 + n}, ${T0 + n}, ${T0}, ${T0})`;
      });
      await ds.query(`INSERT INTO ${life.table} (tenant_id, task_id, engine_group, state, cause, fire_key, attempt, priority, params, scheduled_at, due_at, created_at, updated_at) VALUES ${values.join(',')}`);
    }
    const ids = ((await ds.query(`SELECT id FROM ${life.table} ORDER BY id`)) as Array<{ id: number | string }>).map((r) => Number(r.id));
    for (const change of CHANGES.slice(0, 3)) {
      for (let i = 0; i < ids.length; i += 100) await ds.query(`UPDATE ${life.table} SET ${change} WHERE id IN (${ids.slice(i, i + 100).join(',')})`);
    }
    for (let i = 0; i < ids.length; i += 100) {
      await ds.transaction(async (em) => {
        for (const statement of life.end(ids.slice(i, i + 100).join(','))) await em.query(statement);
      });
    }
    return ((cpuSeconds(mariadbPid) - before) * 1000) / ids.length;
  } finally {
    await ds?.destroy();
    await dropMysqlDatabase(serverUrl, name);
  }
}
