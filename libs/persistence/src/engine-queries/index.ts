/**
 * The engine's SQL, one operation per file, each with its statement in plain sight and a note on
 * why it is shaped the way it is (and what was measured). Run inside inTransaction().
 */
export { dialectOf, MAX_ROWS_PER_STATEMENT } from './sql';
export type { Dialect } from './sql';
export * from './register-engine-node';
export * from './insert-missing-engine-group';
export * from './find-engine-nodes';
export * from './heartbeat-engine-node';
export * from './mark-engine-node-down';
export * from './claim-due-tasks';
export * from './find-calendars';
export * from './insert-planned-runs';
export * from './mark-own-flow';
export * from './advance-planned-tasks';
export * from './claim-due-runs';
export * from './count-claim-backlog';
export * from './find-claimed-run-tasks';
export * from './renew-leases';
export * from './find-lease-holders';
export * from './find-held-runs';
export * from './release-runs';
export * from './skip-misfired-runs';
export * from './cancel-orphaned-runs';
export * from './insert-engine-down-alarms';
// Dispatch side (dispatcher, callbacks, executor registry, watchdog):
export * from './mark-runs-dispatched';
export * from './reroute-dispatched-run';
export * from './mark-runs-accepted';
export * from './defer-run-dispatch';
export * from './skip-claimed-run';
export * from './lock-task-for-concurrency';
export * from './find-executing-runs-of-task';
export * from './cancel-executing-run';
export * from './run-attempt-row';
export * from './find-runs-for-callback';
export * from './finish-run-attempt';
export * from './retry-run-attempt';
export * from './record-run-progress';
export * from './append-run-logs';
export * from './insert-alarm';
export * from './collapse-alarm';
export * from './alarm-outbox';
export * from './lock-flow-root';
export * from './find-dependency-edges';
export * from './find-flow-outcomes';
export * from './insert-dependency-runs';
export * from './schedule-fixed-delay';
export * from './find-tenants';
export * from './find-up-executors';
export * from './record-executor-heartbeat';
export * from './find-late-runs';
export * from './mark-run-late';
export * from './find-overdue-runs';
export * from './find-silent-executors';
export * from './mark-executor-down';
export * from './find-orphaned-runs';
export * from './engine-liveness-locks';
