import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { sleep } from '../../test/cluster/support/cluster';

/**
 * The bench side of bench/support/sql-timing.cjs (an engine preload timing every SQL statement
 * by digest): the engine environment that turns it on, snapshots, and the split of a window's
 * statement time into the engine's loops by digest.
 */

/** Statement digest → [count, total ms of round trips]. */
export type SqlTiming = Record<string, [number, number]>;

/** The preload for a process, answering `signal` (the console shuts down on SIGUSR2: it takes SQL_TIMING_CONSOLE_SIGNAL). */
export function sqlTimingEnv(file: string, signal: NodeJS.Signals = 'SIGUSR2'): Record<string, string> {
  return { NODE_OPTIONS: `-r ${join(__dirname, 'sql-timing.cjs')}`, BENCH_SQL_TIMING_FILE: file, BENCH_SQL_TIMING_SIGNAL: signal };
}

/** The console's snapshot signal: SIGUSR2 shuts it down, SIGWINCH starts its CPU profile (cpu-profile.cjs). */
export const SQL_TIMING_CONSOLE_SIGNAL: NodeJS.Signals = 'SIGURG';

/** Asks the process (`signal`) for its cumulative timings and waits for the file. */
export async function sqlTimingSnapshot(pid: number, file: string, signal: NodeJS.Signals = 'SIGUSR2'): Promise<SqlTiming> {
  rmSync(file, { force: true });
  process.kill(pid, signal);
  for (let waited = 0; !existsSync(file); waited += 20) {
    if (waited > 5_000) throw new Error(`engine ${pid} wrote no SQL timing to ${file} (is bench/support/sql-timing.cjs preloaded?)`);
    await sleep(20);
  }
  await sleep(20); // written with one writeFileSync, but let it finish
  return JSON.parse(readFileSync(file, 'utf8')) as SqlTiming;
}

export function sqlTimingDiff(after: SqlTiming, before: SqlTiming): SqlTiming {
  const out: SqlTiming = {};
  for (const [k, [n, ms]] of Object.entries(after)) {
    const [n0, ms0] = before[k] ?? [0, 0];
    if (n > n0) out[k] = [n - n0, +(ms - ms0).toFixed(2)];
  }
  return out;
}

/**
 * Which loop a statement belongs to, by its text (libs/persistence/src/engine-queries); the
 * transaction statements go with their transaction's first statement (sql-timing.cjs), and
 * those of the other loops' transactions (dispatch, callbacks, watchdog…) are counted apart.
 */
const LOOPS: Array<[string, RegExp]> = [
  ['planner', /FROM tasks WHERE engine_group = \? AND paused = 0|^INSERT INTO runs \(tenant_id, task_id, engine_group, state, cause, fire_key|^UPDATE tasks SET next_fire_at|FROM calendars/],
  ['claimer', /ix_runs_claim|SET state = 'CLAIMED'|^SELECT id, name, executor_app, handler/],
  ['transaction', /^(SET TRANSACTION|START TRANSACTION|COMMIT|ROLLBACK)/],
];

export interface LoopCost {
  statements: number;
  ms: number;
}

export function costByLoop(timing: SqlTiming): Record<string, LoopCost> {
  const out: Record<string, LoopCost> = Object.fromEntries([...LOOPS.map(([l]) => l), 'other'].map((l) => [l, { statements: 0, ms: 0 }]));
  for (const [digest, [n, ms]] of Object.entries(timing)) {
    const loop = LOOPS.find(([, re]) => re.test(digest))?.[0] ?? 'other';
    out[loop].statements += n;
    out[loop].ms = +(out[loop].ms + ms).toFixed(2);
  }
  return out;
}

/** The `k` digests with the most total time (where a cost that grows would show). */
export function topStatements(timing: SqlTiming, k = 12): Array<{ sql: string; count: number; ms: number }> {
  return Object.entries(timing)
    .map(([sql, [count, ms]]) => ({ sql, count, ms }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, k)
    .map((s) => ({ ...s, sql: s.sql.slice(0, 160) }));
}
