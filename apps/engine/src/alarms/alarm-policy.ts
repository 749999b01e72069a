import type { AlarmType, Severity } from '@baton/domain';

/**
 * How loud each engine alarm is. One table, so the console, the relay and the tests agree:
 * - CRITICAL: something a person must look at — the run ended badly, or an executor is gone.
 * - CRITICAL for START_LATE too when its task gives the late run up (onStartLate GIVE_UP): the fire is lost.
 * - WARNING: the run is in trouble but may still make it (late, timed out with a retry left,
 *   refused by executors with a retry left), or a tenant's backlog is late (BACKLOG_LATE); a run
 *   started before its instant (RUN_STARTED_EARLY) or an engine's clock off the database's (CLOCK_SKEW).
 * - INFO: progress of the machinery (a retry scheduled, an executor back).
 * - APPROVAL_REQUESTED (WARNING): a run waits for a person's decision; it says who may decide.
 * BUSINESS alarms carry the severity the handler gave them.
 */
export function severityOf(type: Exclude<AlarmType, 'BUSINESS'>, options: { final?: boolean } = {}): Severity {
  switch (type) {
    case 'START_LATE':
      return options.final === true ? 'CRITICAL' : 'WARNING';
    case 'BACKLOG_LATE':
    case 'RUN_STARTED_EARLY':
    case 'CLOCK_SKEW':
    case 'APPROVAL_REQUESTED':
      return 'WARNING';
    case 'TIMEOUT':
    case 'DISPATCH_REJECTED':
      return options.final === false ? 'WARNING' : 'CRITICAL';
    case 'FAILED':
    case 'TASK_PAUSED':
    case 'EXECUTOR_DOWN':
    case 'ENGINE_DOWN':
      return 'CRITICAL';
    case 'RETRYING':
    case 'EXECUTOR_UP':
      return 'INFO';
  }
}

/**
 * Whether repeats of a task's alarm of this type within its silence window are counted into one.
 * Not APPROVAL_REQUESTED: each asks a person to decide on its own run, which a count would hide.
 */
export function collapsible(type: AlarmType): boolean {
  return type !== 'APPROVAL_REQUESTED';
}
