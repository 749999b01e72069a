import type { FieldError } from '../validation/field-error';

/**
 * Retention: how long ended runs, their logs and alarms are kept (issue 13 item 1).
 *
 * Three levels, each at most the one above: the cluster's ceiling (configuration, set by the
 * operator), the tenant's policy (its admin may only shorten it), and per-task overrides of the
 * run retention and of the number of newest runs kept (a task may keep longer than its tenant,
 * never longer than the ceiling). Logs never outlive their run.
 */
export interface RetentionCeiling {
  runsMs: number;
  logsMs: number;
  alarmsMs: number;
  /** The most newest runs per task a policy may keep whatever their age: without it, `minRunsKept` would outlast `runsMs`. */
  minRunsKept: number;
}

/** A stored level: null fields take the level above. */
export interface RetentionLevel {
  runsMs: number | null;
  logsMs?: number | null;
  alarmsMs?: number | null;
  minRunsKept: number | null;
}

export interface EffectiveRetention {
  runsMs: number;
  logsMs: number;
  alarmsMs: number;
  /** The newest this many runs of each task are kept whatever their age; 0: none. */
  minRunsKept: number;
}

/** The shortest retention anyone may set: purging what was written a moment ago is never what was meant. */
export const MIN_RETENTION_MS = 60_000;

/** The tenant's retention: its stored policy within the ceiling. */
export function tenantRetention(ceiling: RetentionCeiling, tenant: RetentionLevel | null): EffectiveRetention {
  const runsMs = Math.min(ceiling.runsMs, tenant?.runsMs ?? ceiling.runsMs);
  return {
    runsMs,
    logsMs: Math.min(runsMs, ceiling.logsMs, tenant?.logsMs ?? ceiling.logsMs),
    alarmsMs: Math.min(ceiling.alarmsMs, tenant?.alarmsMs ?? ceiling.alarmsMs),
    minRunsKept: Math.min(ceiling.minRunsKept, tenant?.minRunsKept ?? 0),
  };
}

/** A task's retention: its override, else its tenant's, within the ceiling. */
export function taskRetention(ceiling: RetentionCeiling, tenant: EffectiveRetention, task: RetentionLevel | null): EffectiveRetention {
  const runsMs = Math.min(ceiling.runsMs, task?.runsMs ?? tenant.runsMs);
  return { ...tenant, runsMs, logsMs: Math.min(tenant.logsMs, runsMs), minRunsKept: Math.min(ceiling.minRunsKept, task?.minRunsKept ?? tenant.minRunsKept) };
}

/**
 * What a tenant admin may store: each duration at least MIN_RETENTION_MS and at most the
 * ceiling, `minRunsKept` at most the ceiling's. (A policy stored before the ceiling was lowered
 * is applied within it: see tenantRetention and taskRetention.)
 */
export function validateRetention(input: RetentionLevel, ceiling: RetentionCeiling, prefix = ''): FieldError[] {
  const errors: FieldError[] = [];
  const duration = (field: 'runsMs' | 'logsMs' | 'alarmsMs') => {
    const value = input[field];
    if (value === null || value === undefined) return;
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) errors.push({ field: prefix + field, reason: 'must be an integer number of milliseconds, or null' });
    else if (value < MIN_RETENTION_MS) errors.push({ field: prefix + field, reason: `must be at least ${MIN_RETENTION_MS} (1 minute)` });
    else if (value > ceiling[field]) errors.push({ field: prefix + field, reason: `must be at most ${ceiling[field]}, the cluster's ceiling` });
  };
  duration('runsMs');
  duration('logsMs');
  duration('alarmsMs');
  const kept = input.minRunsKept;
  if (kept !== null && kept !== undefined && (typeof kept !== 'number' || !Number.isInteger(kept) || kept < 0 || kept > ceiling.minRunsKept)) {
    errors.push({ field: prefix + 'minRunsKept', reason: `must be an integer from 0 to ${ceiling.minRunsKept}, the cluster's ceiling (BATON_MAX_RUNS_KEPT), or null` });
  }
  return errors;
}

/** An ended run as the purge sees it. */
export interface PurgeCheck {
  taskId: number;
  flowId: number | null;
  scheduledAt: number;
  id: number;
  finishedAt: number;
}

/**
 * Whether an ended run may be purged at `now`: older than its task's retention, not among the
 * newest `minRunsKept` of its task (`newestKept`: the task's boundary run, null when it has no
 * more runs than that), and not in a flow that still has a run going.
 */
export function mayPurge(run: PurgeCheck, retention: EffectiveRetention, now: number, newestKept: { scheduledAt: number; id: number } | null, liveFlows: ReadonlySet<number>): boolean {
  if (run.finishedAt >= now - retention.runsMs) return false;
  if (retention.minRunsKept > 0) {
    if (newestKept === null) return false;
    const inNewest = run.scheduledAt > newestKept.scheduledAt || (run.scheduledAt === newestKept.scheduledAt && run.id >= newestKept.id);
    if (inNewest) return false;
  }
  return run.flowId === null || !liveFlows.has(run.flowId);
}

/** A purge comes at most this share of the shortest retention late (a 1-hour retention: 6 minutes). */
export const PURGE_PERIOD_SHARE = 0.1;
/** The longest a tenant goes between two purges (the default retentions, days long, purge every 10 minutes). */
export const MAX_PURGE_PERIOD_MS = 10 * 60_000;

/**
 * How long after a purge the tenant's next one is due: a tenth of the shortest retention it has
 * (`shortestMs`: its runs', logs' or alarms', or a task's runs'), at least the history job's
 * period (`intervalMs`: it cannot come sooner) and at most MAX_PURGE_PERIOD_MS. Between purges
 * nothing passes its retention by more than that; in exchange a tenant with nothing to purge
 * costs the database nothing most turns (1,000 idle tenants purged every turn kept an idle
 * cluster about one core busy).
 */
export function purgePeriodMs(shortestMs: number, intervalMs: number): number {
  return Math.max(intervalMs, Math.min(MAX_PURGE_PERIOD_MS, Math.floor(shortestMs * PURGE_PERIOD_SHARE)));
}
