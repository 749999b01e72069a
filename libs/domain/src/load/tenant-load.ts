/**
 * A tenant's load as the engines' shared database sees it (issue 20 item 4): what waits, what the
 * engines hold, what the executors run, and how late the oldest waiting run is. Pure: the
 * counts are read by libs/persistence/src/load-queries, `now` is given.
 */

/**
 * Counting stops here: a count is read with `LIMIT cap + 1`, so a 100,000-run backlog costs the
 * same as a 10,001-run one. A count at the cap reads "10,000+" (`capped`).
 */
export const LOAD_COUNT_CAP = 10_000;

/** A count that stopped at the cap: `count` is then a lower bound. */
export interface LoadCount {
  count: number;
  /** True when counting stopped at the cap: there are more than `count`. */
  capped: boolean;
}

/** What the tenant's UP executors reported in their last heartbeats. */
export interface ExecutorCapacity {
  /** UP executors. */
  up: number;
  /** Sum of their pool sizes. */
  capacity: number;
  /** Sum of the runs they said they had in flight: running, waiting for a worker, and sent ahead waiting for their instant (executorLoad takes those out). */
  inFlight: number;
}

export interface TenantLoad {
  tenantId: string;
  engineGroup: string;
  /** PENDING and RETRY_WAIT runs whose due time has come: waiting to be claimed. */
  due: LoadCount;
  /** CLAIMED runs: held by engines, waiting for their instant, a token or an executor's credit. */
  held: LoadCount;
  /** DISPATCHED and ACCEPTED runs whose instant has come: at an executor, running or waiting there for a worker (a fan-out run counts while its shards run). The executors' load. */
  inFlight: LoadCount;
  /** DISPATCHED and ACCEPTED runs sent ahead of their instant (BATON_SEND_AHEAD_MS), waiting for it at their executor: a place there, no worker — not load. */
  sentAhead: LoadCount;
  executors: ExecutorCapacity;
  /** Due time of the oldest due run; null when nothing is due. */
  oldestDueAt: number | null;
  /** now − oldestDueAt; null when nothing is due. */
  oldestDueAgeMs: number | null;
  /** When the current BACKLOG_LATE episode was alarmed (see backlogAlarmStep); null when none is going on. */
  backlogLateSince: number | null;
}

/** A count read with `LIMIT cap + 1`, as a LoadCount. */
export function loadCount(counted: number, cap = LOAD_COUNT_CAP): LoadCount {
  return counted > cap ? { count: cap, capped: true } : { count: counted, capped: false };
}

/**
 * What an executor (or a tenant's executors) has to do now: the runs it reported in flight less
 * those sent ahead to it that wait there for their instant, which its figure counts (they take a
 * place, no worker). The runs sent ahead are the engines' count of now, the figure its last
 * heartbeat's: never below 0.
 */
export function executorLoad(reportedInFlight: number, sentAhead: number): number {
  return Math.max(0, reportedInFlight - sentAhead);
}

/** `a − b` of two counts, never below 0; capped when `a` is (what is left of a lower bound is a lower bound). */
export function subtractCount(a: LoadCount, b: number): LoadCount {
  return { count: Math.max(0, a.count - b), capped: a.capped };
}

/**
 * The order of a load board: the tenant whose oldest due run waits longest first — the one whose
 * users notice first —, then the tenants with nothing due, by id (a stable order for a table that
 * refreshes every few seconds).
 */
export function byOldestDue(a: { tenantId: string; oldestDueAt: number | null }, b: { tenantId: string; oldestDueAt: number | null }): number {
  if (a.oldestDueAt !== b.oldestDueAt) {
    if (a.oldestDueAt === null) return 1;
    if (b.oldestDueAt === null) return -1;
    return a.oldestDueAt - b.oldestDueAt;
  }
  return a.tenantId < b.tenantId ? -1 : a.tenantId > b.tenantId ? 1 : 0;
}

/** What the backlog check does for one tenant: raise BACKLOG_LATE, end the episode, or nothing. */
export type BacklogAlarmStep = 'RAISE' | 'CLEAR' | null;

/**
 * One BACKLOG_LATE alarm per episode: raised when the tenant's oldest due run has waited longer
 * than `thresholdMs`, and not again until the episode ends — when the oldest due run waits at most
 * half the threshold (or nothing is due). The half is a hysteresis: a backlog hovering at the
 * threshold does not alarm on every check. `thresholdMs` 0 turns the alarm off (and ends an
 * episode going on).
 */
export function backlogAlarmStep(input: { oldestDueAt: number | null; thresholdMs: number; lateSince: number | null; now: number }): BacklogAlarmStep {
  const ageMs = input.oldestDueAt === null ? 0 : input.now - input.oldestDueAt;
  if (input.lateSince === null) return input.thresholdMs > 0 && ageMs > input.thresholdMs ? 'RAISE' : null;
  return input.thresholdMs <= 0 || ageMs <= input.thresholdMs / 2 ? 'CLEAR' : null;
}
