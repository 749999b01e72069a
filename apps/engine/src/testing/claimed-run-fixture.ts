import type { ClaimedRun } from '../common/claimed-run';

/** A ClaimedRun as the claim side hands it over, for tests with no database: run `runId` of tenant acme, due at `dueAt`, `more` on top. */
export function aClaimedRun(runId: number, dueAt: number, more: Partial<ClaimedRun> = {}): ClaimedRun {
  return {
    runId,
    tenantId: 'acme',
    taskId: runId,
    taskName: `t${runId}`,
    engineGroup: 'default',
    attempt: 1,
    priority: 0,
    params: {},
    scheduledAt: dueAt,
    dueAt,
    instant: dueAt,
    lateFrom: dueAt,
    leaseUntil: dueAt + 15_000,
    flowId: runId,
    executorApp: 'app',
    handler: 'h',
    timeoutMs: 60_000,
    startDeadlineMs: 10_000,
    concurrencyPolicy: 'ALLOW',
    retry: { maxAttempts: 1, backoffBaseMs: 1000, backoffMaxMs: 60_000, jitter: 0 },
    fanOut: { mode: 'SINGLE', shards: null, failWhen: 'ANY_SHARD_FAILS' },
    shard: null,
    executorId: null,
    cause: 'MANUAL',
    alarmTypes: null,
    alarmSilenceMs: 0,
    followUps: { children: false, fixedDelay: false },
    keyed: false,
    ...more,
  };
}
