import { AlarmEntity } from '@baton/persistence';
import { MoreThanOrEqual } from 'typeorm';
import { Cluster, sleep } from '../../../test/cluster/support/cluster';
import { countBy, percentile } from '../../../test/cluster/support/figures';
import { FaultProxy } from '../fault-proxy';
import { dueTimes, faultResult, lastEnd, openThrottles, seedRuns, settle, waitAllEnded, type FaultResult } from './common';
import { ENGINE_DEFAULT_TIMING } from './engine-kill';

/**
 * How engine 1 is hurt: its database connections black-holed or slowed, the process frozen
 * (SIGSTOP … SIGCONT), or its clock ahead from its start (libfaketime, Debian's `faketime`).
 */
export type EngineFault = { kind: 'db-hole' } | { kind: 'db-delay'; delayMs: number } | { kind: 'sigstop' } | { kind: 'clock-ahead'; aheadMs: number };

/** Debian's libfaketime (package `faketime`). */
const LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';

/** Engine 1's own environment: its database through the proxy; for a clock ahead, libfaketime (wall clock only: timers keep their pace). */
function victimEnv(fault: EngineFault, dbUrl: string): Record<string, string> {
  const env = { ...ENGINE_DEFAULT_TIMING, BATON_DB_URL: dbUrl };
  if (fault.kind !== 'clock-ahead') return env;
  return { ...env, LD_PRELOAD: LIBFAKETIME, FAKETIME: `+${fault.aheadMs / 1000}s`, FAKETIME_DONT_FAKE_MONOTONIC: '1', FAKETIME_NO_CACHE: '1' };
}

/** The executors of the issue-44 runs: concurrency 32, the SDK's default queue limit. */
const EXECUTOR_ENV = { BATON_EXECUTOR_CONCURRENCY: '32', BATON_EXECUTOR_QUEUE_LIMIT: '100' };

/** A run started more than this before its instant is early (issue 39's bound). */
const EARLY_MS = 20;

/** Alarms are counted until this long after the heal: a dead-after and a heartbeat at the default timing. */
const ALARM_WINDOW_AFTER_HEAL_MS = 10_000;

/**
 * One engine's trouble, to see that it stays its own (issues 39 and 44): 3 engines at Baton's
 * default timing, engine 1 reaching MariaDB through a FaultProxy; 3 demo executors heartbeating
 * to all three; `n` runs of `sleep 200 ms` due over `spanMs` from T. At T + 5 s the fault starts
 * and lasts `faultMs`: the proxy black-holes engine 1's database traffic or delays it, or engine 1
 * gets SIGSTOP (SIGCONT at the end). Counted: lost and doubled (the executors' records), runs
 * started more than 20 ms before their instant, the start lateness (first invocation − instant)
 * of the runs engine 1 held at the fault (CLAIMED or DISPATCHED by it), how long after its
 * handler ended a run showed as ended (updated_at − finished_at: the final callback's way), and the
 * EXECUTOR_DOWN and ENGINE_DOWN alarms raised from the fault to 10 s after the heal (a second
 * takeover of the engine coming back would fall in it). Recovery: the fault → the last of the
 * runs engine 1 held ended.
 */
export async function engineDbFault(options: { fault: EngineFault; faultMs: number; n: number; spanMs: number }, log: (s: string) => void): Promise<FaultResult> {
  const c = await Cluster.open(`fe${options.fault.kind[3]}`);
  const { proxy, url } = await FaultProxy.proxying(c.db.url);
  let failed = true;
  try {
    await openThrottles(c);
    const victimStartedAt = Date.now();
    const [victim] = await c.startEngines(1, victimEnv(options.fault, url));
    await c.startEngines(2, ENGINE_DEFAULT_TIMING);
    await c.startExecutors(3, EXECUTOR_ENV);
    const due = Math.ceil((Date.now() + 6_000) / 1000) * 1000;
    await seedRuns(c, { handler: 'sleep', params: () => ({ ms: 200 }), dueAt: dueTimes(options.n, due, options.spanMs) });
    await sleep(Math.max(0, due + 5_000 - Date.now()));
    const held: Array<{ id: number | string }> = await c.ds.query("SELECT id FROM runs WHERE tenant_id = ? AND claimed_by = ? AND state IN ('CLAIMED','DISPATCHED')", [c.tenant.id, victim.nodeId]);
    const heldIds = new Set(held.map((r) => Number(r.id)));
    const faultAt = Date.now();
    if (options.fault.kind === 'sigstop') process.kill(victim.pid, 'SIGSTOP');
    else if (options.fault.kind === 'db-hole') proxy.set({ kind: 'hole' });
    else if (options.fault.kind === 'db-delay') proxy.set({ kind: 'delay', delayMs: options.fault.delayMs });
    log(`  ${options.fault.kind} on ${victim.nodeId} for ${options.faultMs} ms, holding ${heldIds.size} runs`);
    await sleep(options.faultMs);
    const healedAt = Date.now();
    if (options.fault.kind === 'sigstop') process.kill(victim.pid, 'SIGCONT');
    proxy.set({ kind: 'pass' });
    const waited = await waitAllEnded(c, options.n, { timeoutMs: 180_000, stallMs: 60_000, log });
    await sleep(Math.max(0, healedAt + ALARM_WINDOW_AFTER_HEAL_MS - Date.now()));
    const { runs, records, t } = await settle(c, faultAt, log);
    const firstStart = new Map<number, number>();
    for (const r of records) firstStart.set(r.runId, Math.min(firstStart.get(r.runId) ?? Infinity, r.at));
    const instant = new Map(runs.map((r) => [r.id, r.scheduledAt]));
    const lateness = (ids: Iterable<number>) => [...ids].filter((id) => firstStart.has(id) && instant.has(id)).map((id) => firstStart.get(id)! - instant.get(id)!);
    const all = lateness(runs.map((r) => r.id));
    // updated_at is written by the engine that took the final callback; finished_at is the executor's end.
    const shownEndedAfter = runs.filter((r) => r.finishedAt !== null).map((r) => r.updatedAt - r.finishedAt!);
    const victimEnds = runs.filter((r) => heldIds.has(r.id)).map((r) => r.updatedAt);
    const ofVictim = lateness(heldIds);
    // A skewed clock is the victim's from its start: its CLOCK_SKEW alarm is counted from then.
    const alarmsFrom = options.fault.kind === 'clock-ahead' ? victimStartedAt : faultAt;
    const alarms = await c.ds.getRepository(AlarmEntity).find({ where: { tenantId: c.tenant.id, raisedAt: MoreThanOrEqual(alarmsFrom) } });
    const result = faultResult(
      `engine 1 of 3: ${label(options.fault)} ${options.faultMs / 1000} s`,
      { engines: 3, executors: 3, runs: options.n, spanMs: options.spanMs, faultMs: options.faultMs, ...ENGINE_DEFAULT_TIMING },
      runs,
      t,
      { recoveryMs: (victimEnds.length ? Math.max(...victimEnds) : lastEnd(runs)) - faultAt },
      {
        early: all.filter((ms) => ms < -EARLY_MS).length,
        earliestMs: all.length ? Math.min(...all) : NaN,
        lateP99: percentile(all, 99),
        victimHeld: heldIds.size,
        victimLateP50: percentile(ofVictim, 50),
        victimLateP99: percentile(ofVictim, 99),
        victimLateMax: ofVictim.length ? Math.max(...ofVictim) : NaN,
        shownEndedP99: percentile(shownEndedAfter, 99),
        shownEndedMax: shownEndedAfter.length ? Math.max(...shownEndedAfter) : NaN,
        executorDownAlarms: alarms.filter((a) => a.type === 'EXECUTOR_DOWN').length,
        engineDownAlarms: alarms.filter((a) => a.type === 'ENGINE_DOWN').length,
        clockSkewAfterMs: alarms.filter((a) => a.type === 'CLOCK_SKEW').map((a) => a.raisedAt - victimStartedAt),
        alarms: countBy(alarms, (a) => a.type),
        engineDownAfterMs: alarms.filter((a) => a.type === 'ENGINE_DOWN').map((a) => a.raisedAt - faultAt),
        allEnded: waited.complete,
      },
    );
    failed = result.lost + result.duplicated > 0;
    return result;
  } finally {
    // Never leave a frozen engine behind (close() stops it with SIGTERM, which a stopped process would not act on).
    if (options.fault.kind === 'sigstop') c.engines.forEach((e) => e.alive && process.kill(e.pid, 'SIGCONT'));
    await c.close(failed);
    await proxy.close();
  }
}

function label(fault: EngineFault): string {
  switch (fault.kind) {
    case 'db-hole':
      return 'database connections black-holed';
    case 'db-delay':
      return `database traffic delayed ${fault.delayMs / 1000} s`;
    case 'sigstop':
      return 'process frozen (SIGSTOP)';
    case 'clock-ahead':
      return `clock ${fault.aheadMs / 1000} s ahead (libfaketime), measured over`;
  }
}
