import { sentAheadLeaseMs } from '@baton/protocol';

/**
 * The heartbeat interval engines give executors (the ack's `intervalMs`): a third of the time after
 * which an executor is declared DOWN, so two heartbeats may be lost before that happens; 0.5–5 s.
 */
export function executorHeartbeatIntervalMs(executorDeadAfterMs: number): number {
  return Math.max(500, Math.min(5_000, Math.floor(executorDeadAfterMs / 3)));
}

/**
 * The longest an executor of protocol 3 may start a run it held for its instant after the last
 * heartbeat it sent that an engine answered (the sent-ahead lease, with this engine's interval).
 * The engines of a group share BATON_EXECUTOR_DEAD_AFTER_MS, so every engine's ack gives the same.
 */
export function executorSentAheadLeaseMs(executorDeadAfterMs: number): number {
  return sentAheadLeaseMs(executorHeartbeatIntervalMs(executorDeadAfterMs));
}
