import type { Millis, MisfirePolicy, Schedule } from '../types';
import { followingFireTime, remainingFires, resumeFireTime } from './next-fire';

/**
 * What the planner writes for one fire time:
 * - ON_TIME: planned in time (or late by no more than the misfire threshold); due at its
 *   scheduled time.
 * - MISFIRE_NOW: FIRE_ONCE_NOW's single stand-in for a stretch of missed fire times; carries
 *   the latest missed time as its scheduled time (its fire key) and is due now.
 * - MISSED: one of FIRE_ALL_MISSED's catch-up runs, one per missed fire time, due now.
 */
export type PlannedFireKind = 'ON_TIME' | 'MISFIRE_NOW' | 'MISSED';

export interface PlannedFire {
  scheduledAt: Millis;
  dueAt: Millis;
  kind: PlannedFireKind;
}

export interface FirePlanInput {
  schedule: Schedule;
  misfirePolicy: MisfirePolicy;
  /** A fire time late by more than this is a misfire; late by exactly this is still on time. */
  misfireThresholdMs: number;
  /** The task's stored next fire time; null means nothing left to plan. */
  nextFireAt: Millis | null;
  now: Millis;
  /** Fire times up to now + lookAheadMs (inclusive) are planned now. */
  lookAheadMs: number;
  /** Rows this call may produce: fires plus skipped (each becomes a run row). */
  maxRuns: number;
  /** Fire times one call may walk; see DEFAULT_MAX_SCAN. */
  maxScan?: number;
  /**
   * Fire times that have a run already (their fire key is taken; default none): walked past,
   * neither planned again nor counted again — each was counted when it was planned. The stored
   * next fire time lies behind such fires when an instant withdrawn from an executor is given
   * back after the planner planned on (prepared-fires.ts): counted again, a task with maxFires
   * stopped that many fires early.
   */
  taken?: ReadonlySet<Millis>;
}

export interface FirePlan {
  fires: PlannedFire[];
  /** Missed fire times to record as SKIPPED runs (policy SKIP). */
  skipped: Millis[];
  /** The first fire time not consumed by this plan: store it as the task's next fire time. */
  nextFireAt: Millis | null;
  /** Fire times consumed (run, folded into MISFIRE_NOW, or skipped): add to fireCount. */
  firesConsumed: number;
}

/**
 * How many fire times one planning call walks at most. Only FIRE_ONCE_NOW can walk far
 * without producing rows (a day of downtime of a per-second cron is 86 400 missed times);
 * when it hits this bound it stops *before* its last missed time and returns that as the next
 * fire time, so the following call still sees a missed time and emits the one stand-in run.
 * The stretch is then consumed over several calls but still yields exactly one run.
 * A croner step costs tens of microseconds, so 2 000 keeps one call well under 100 ms.
 */
export const DEFAULT_MAX_SCAN = 2_000;

/**
 * Turns a task's due fire times into run rows, applying its misfire policy.
 *
 * Fire times in [now − threshold, now + lookAhead] are on time; earlier ones are misfires:
 * - FIRE_ONCE_NOW: all of them become one run due now, scheduled at the latest missed time;
 * - FIRE_ALL_MISSED: each becomes a run due now (capped by maxRuns; the rest wait for the
 *   next call through `nextFireAt`);
 * - SKIP: each is returned in `skipped` (capped the same way).
 *
 * maxFires counts fire times, whatever became of them: a missed time folded into a
 * MISFIRE_NOW run or skipped is consumed like one that ran, so downtime never stretches a
 * task past its Nth fire time. endAt and the exclusion calendar apply to missed times too.
 * FIXED_DELAY plans at most its one stored fire (the next one waits for the run to finish).
 */
export function planFires(input: FirePlanInput): FirePlan {
  const { schedule, misfirePolicy, now } = input;
  const maxRuns = Math.max(0, Math.floor(input.maxRuns));
  const maxScan = Math.max(2, Math.floor(input.maxScan ?? DEFAULT_MAX_SCAN));
  const lateLimit = now - Math.max(0, input.misfireThresholdMs);
  const horizon = now + Math.max(0, input.lookAheadMs);
  const allowed = remainingFires(schedule);

  const fires: PlannedFire[] = [];
  const skipped: Millis[] = [];
  let consumed = 0;
  let scanned = 0;
  // FIRE_ONCE_NOW: the latest missed time so far, not yet emitted (more may follow).
  let collapsed: Millis | null = null;
  const rows = () => fires.length + skipped.length + (collapsed === null ? 0 : 1);
  const flushCollapsed = () => {
    if (collapsed !== null) fires.push({ scheduledAt: collapsed, dueAt: now, kind: 'MISFIRE_NOW' });
    collapsed = null;
  };

  let t = input.nextFireAt === null || allowed <= 0 ? null : resumeFireTime(schedule, input.nextFireAt);
  while (t !== null && t <= horizon && consumed < allowed) {
    if (input.taken?.has(t)) {
      scanned++;
      t = followingFireTime(schedule, t);
      continue;
    }
    if (t < lateLimit) {
      if (misfirePolicy === 'FIRE_ONCE_NOW') {
        if (collapsed === null && rows() >= maxRuns) break;
        if (scanned >= maxScan && collapsed !== null) {
          // Hand the last missed time back, so the next call still has one to stand for.
          t = collapsed;
          collapsed = null;
          consumed--;
          break;
        }
        collapsed = t;
      } else {
        if (rows() >= maxRuns) break;
        if (misfirePolicy === 'FIRE_ALL_MISSED') fires.push({ scheduledAt: t, dueAt: now, kind: 'MISSED' });
        else skipped.push(t);
      }
    } else {
      flushCollapsed();
      if (rows() >= maxRuns) break;
      fires.push({ scheduledAt: t, dueAt: t, kind: 'ON_TIME' });
    }
    consumed++;
    scanned++;
    t = followingFireTime(schedule, t);
  }
  flushCollapsed();

  const nextFireAt = consumed >= allowed ? null : t;
  return { fires, skipped, nextFireAt, firesConsumed: consumed };
}
