import { createHash } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { debounceWindow, runKeyOf, throttleDecision, type RunCause, type ThrottlePeriod } from '@baton/domain';
import { findWindowRun, joinWindowRun, lockThrottleKey, openWindowRun, retireWindowName, storeThrottlePeriod, type RunEntity, type SubmittableTask, type ThrottleKeyRef } from '@baton/persistence';

/** A submission of a task that debounces or throttles, its params resolved. */
export interface WindowedSubmission {
  task: SubmittableTask;
  /** JSON text of the run's params (the task's when the submission gave none). */
  params: string | null;
  flowParams: string | null;
  cause: RunCause;
  traceParent: string | null;
}

/**
 * What became of it: START — an ordinary run now (the throttle let it through); DROP — nothing
 * (keep FIRST, its period full), with why; WINDOW — its key's COALESCING run, which it opened
 * (`created`) or joined.
 */
export type WindowOutcome = { kind: 'START' } | { kind: 'DROP'; reason: string } | { kind: 'WINDOW'; row: RunEntity; created: boolean };

/** Tries of open-or-join for one submission: a try loses only to a concurrent submission of the same key. */
const MAX_TRIES = 5;

/**
 * Debounce and throttle per key, in the submissions' transaction (SubmissionsService.write).
 * Nothing waits in a console's memory: a key's pending run is a COALESCING run row named by its key
 * (fire key `w:<digest>`, unique per task), which every submission of the key updates — params
 * replaced, due time moved — in one guarded UPDATE, or inserts when the key has no open window.
 * Engines claim it once due like any run. A throttled key's period is its run_keys row, read and
 * written under that row's lock. Keys are taken in one sorted order (throttle rows, then window
 * rows), so two consoles' batches never deadlock on each other.
 */
export async function applyKeyWindows(em: EntityManager, tenantId: string, items: readonly WindowedSubmission[], now: number): Promise<WindowOutcome[]> {
  const outcomes: WindowOutcome[] = new Array(items.length);
  const keyed = items.map((item, i) => ({ i, item, key: runKeyOf(item.params === null ? null : JSON.parse(item.params), (item.task.debounce ?? item.task.throttle)!.key) }));
  const windows: Array<{ i: number; item: WindowedSubmission; key: string; dueAt: number; until: number }> = [];
  const throttled = keyed.filter((k) => k.item.task.throttle !== null);
  const refs = new Map<string, { ref: ThrottleKeyRef; period: ThrottlePeriod | null }>();
  for (const { item, key } of [...throttled].sort((a, b) => cmp(refId(a.item.task.id, a.key), refId(b.item.task.id, b.key)))) {
    const id = refId(item.task.id, key);
    if (!refs.has(id)) {
      const ref = { tenantId, taskId: item.task.id, key };
      refs.set(id, { ref, period: await lockThrottleKey(em, ref, now) });
    }
  }
  for (const { i, item, key } of throttled) {
    const rule = item.task.throttle!;
    const state = refs.get(refId(item.task.id, key))!;
    const { decision, period } = throttleDecision(state.period, rule, now);
    state.period = period;
    if (decision.action === 'START') outcomes[i] = { kind: 'START' };
    else if (decision.action === 'DROP') outcomes[i] = { kind: 'DROP', reason: `Throttled: ${rule.limit} run(s) of key '${key}' started in this ${rule.periodMs} ms period already (throttle keep FIRST)` };
    else windows.push({ i, item, key, dueAt: decision.dueAt, until: decision.dueAt });
  }
  for (const { ref, period } of refs.values()) if (period) await storeThrottlePeriod(em, ref, period);
  for (const { i, item, key } of keyed) {
    if (item.task.debounce === null) continue;
    const window = debounceWindow(null, item.task.debounce, now);
    windows.push({ i, item, key, dueAt: window.dueAt, until: window.until });
  }
  // In key order (then submission order), so a key's later submissions join what its first opened.
  const named = windows.map((w) => ({ ...w, fireKey: windowFireKey(w.key) })).sort((a, b) => cmp(refId(a.item.task.id, a.fireKey), refId(b.item.task.id, b.fireKey)) || a.i - b.i);
  for (const w of named) {
    const submission = { tenantId, taskId: w.item.task.id, fireKey: w.fireKey, params: w.item.params, flowParams: w.item.flowParams, dueAt: w.dueAt, until: w.until, now };
    const created = await openOrJoin(em, submission, { engineGroup: w.item.task.engineGroup, priority: w.item.task.priority, cause: w.item.cause, traceParent: w.item.traceParent });
    const row = await findWindowRun(em, submission);
    if (!row) throw new Error(`window run of task ${w.item.task.id} under ${w.fireKey} not found after its write`);
    outcomes[w.i] = { kind: 'WINDOW', row, created };
  }
  return outcomes;
}

/**
 * Joins the key's open window (the debounce arithmetic's "an open window moves its due time, never
 * past its end", domain debounceWindow, done by the UPDATE itself so that it is atomic), or opens
 * one; a run still holding the window's name but no longer COALESCING (claimed, cancelled) gives
 * it up first. Returns whether it opened the window.
 */
async function openOrJoin(em: EntityManager, submission: Parameters<typeof joinWindowRun>[1], rest: { engineGroup: string; priority: number; cause: RunCause; traceParent: string | null }): Promise<boolean> {
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    if (await joinWindowRun(em, submission)) return false;
    if (await openWindowRun(em, { ...submission, ...rest })) return true;
    await retireWindowName(em, submission);
  }
  throw new Error(`window of task ${submission.taskId} under ${submission.fireKey}: neither joined nor opened in ${MAX_TRIES} tries`);
}

/** A key's window's fire key: `w:` and the key's SHA-256 in base64url (45 characters; keys are up to 160, fire keys 64). */
export function windowFireKey(key: string): string {
  return `w:${createHash('sha256').update(key, 'utf8').digest('base64url')}`;
}

function refId(taskId: number, key: string): string {
  return `${taskId}\u0000${key}`;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
