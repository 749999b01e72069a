import type { DataSource } from 'typeorm';
import { HOUR_MS, keyAtRest, mayPurge, MINUTE_MS, taskRetention, tenantRetention, type EffectiveRetention, type RetentionCeiling } from '@baton/domain';
import {
  advanceHistoryCursor,
  deleteEndedRuns,
  findLiveFlows,
  findPurgeCandidates,
  findRetentionPolicies,
  findTaskPurgeCandidates,
  inTransaction,
  newestRunsBoundary,
  purgeAlarms,
  purgeEvents,
  purgeDownExecutors,
  purgeSubmissionKeys,
  purgeInboundSignatures,
  findUnusedRunKeys,
  deleteRunKeys,
  purgeAuditRecords,
  purgeRollups,
  purgeRunLogs,
  purgeWebhookDeliveries,
  type HistoryCursor,
  type PurgeCandidate,
} from '@baton/persistence';
import { LostHistoryLeaseError } from './lost-history-lease-error';

/** Minute rollups are kept this long (the statistics of longer windows read hours). */
export const MINUTE_ROLLUPS_KEPT_MS = 48 * HOUR_MS;
/** A key's row no run has taken for this long is looked at by the purge (deleted if at rest: domain keyAtRest). */
export const KEY_ROWS_UNUSED_MS = HOUR_MS;
/** Purge transactions per kind per tenant per pass: a backlog of purgeable history goes over several passes. */
export const MAX_BATCHES_PER_PASS = 20;

export interface PurgeSettings {
  ceiling: RetentionCeiling;
  statsRetentionMs: number;
  /** The audit log's retention: the operator's alone (BATON_AUDIT_RETENTION_MS); no tenant policy shortens it. */
  auditRetentionMs: number;
  batch: number;
  /** Runs each delete transaction (the job paces them: it yields to dispatch and rests between). Default: at once. */
  step?: <T>(work: () => Promise<T>) => Promise<T>;
}

export interface PurgeReport {
  runs: number;
  logs: number;
  alarms: number;
  events: number;
  /** Idempotency keys of submissions to debounced or throttled tasks. */
  submissionKeys: number;
  /** Signatures of inbound webhook deliveries, remembered against replays. */
  inboundSignatures: number;
  /** Rows of concurrency, rate and throttle keys at rest (run_keys). */
  runKeys: number;
  /** Executors DOWN since before the runs' retention. */
  executors: number;
  rollups: number;
  audit: number;
  /** True when a kind stopped at MAX_BATCHES_PER_PASS with more to purge. */
  more: boolean;
  /** The shortest retention the tenant has (its runs', logs', alarms', a task's runs'): how soon it needs purging again. */
  shortestRetentionMs: number;
}

/**
 * Purges what a tenant's retention lets go, in small transactions through indexes:
 *
 * - ended runs (with their logs) that ended before their task's retention and before the
 *   cursor's settled point (so they are in the statistics), except the newest `minRunsKept` of
 *   their task and the runs of a flow with a run still going — a sweep over finished_at from the
 *   cursor's purge position, then the tasks that keep less than their tenant;
 * - events received before the tenant's run retention (runsMs): an event lives as long as the
 *   runs it could have started, and its idempotency key is free again once it is gone; the
 *   idempotency keys of submissions to debounced or throttled tasks likewise, and the signatures
 *   of inbound webhook deliveries (a delivery sent again is refused while its event could be kept);
 * - executors DOWN since before the tenant's run retention: the runs that went to them have gone
 *   by then (but the newest a task keeps), and an executor that comes back under a new address
 *   (a restarted container) would otherwise leave its old row for ever;
 * - rows of concurrency, rate and throttle keys (run_keys) no run took for KEY_ROWS_UNUSED_MS,
 *   once at rest (domain keyAtRest): the next run of the key makes its row again, fresh;
 * - logs of runs older than the log retention; alarms older than theirs, once published, and
 *   finished webhook deliveries with them;
 * - audit records older than BATON_AUDIT_RETENTION_MS (the operator's; tenants cannot shorten it);
 * - minute rollups after 48 h, hour rollups after BATON_STATS_RETENTION_MS.
 *
 * Deletes run at READ COMMITTED by primary key and only touch ended rows: the claim path (PENDING
 * and CLAIMED rows through ix_runs_claim) never waits on a purge.
 */
export async function purgeTenant(dataSource: DataSource, worker: string, cursor: HistoryCursor, now: number, settings: PurgeSettings): Promise<PurgeReport> {
  const tenantId = cursor.tenantId;
  const stored = await findRetentionPolicies(dataSource.manager, tenantId);
  const tenant = tenantRetention(settings.ceiling, stored.find((p) => p.taskId === 0) ?? null);
  const tasks = new Map(stored.filter((p) => p.taskId !== 0).map((p) => [p.taskId, taskRetention(settings.ceiling, tenant, p)]));
  let shortestRetentionMs = Math.min(tenant.runsMs, tenant.logsMs, tenant.alarmsMs);
  for (const t of tasks.values()) shortestRetentionMs = Math.min(shortestRetentionMs, t.runsMs);
  const report: PurgeReport = { runs: 0, logs: 0, alarms: 0, events: 0, submissionKeys: 0, inboundSignatures: 0, runKeys: 0, executors: 0, rollups: 0, audit: 0, more: false, shortestRetentionMs };
  const retentionOf = (taskId: number): EffectiveRetention => tasks.get(taskId) ?? tenant;
  const boundaries = new Map<number, { scheduledAt: number; id: number } | null>();
  const step = settings.step ?? (<T,>(work: () => Promise<T>) => work());

  const purgeBatch = async (candidates: PurgeCandidate[]): Promise<void> => {
    const liveFlows = await findLiveFlows(dataSource.manager, [...new Set(candidates.flatMap((c) => (c.flowId === null ? [] : [c.flowId])))]);
    const ids: number[] = [];
    for (const c of candidates) {
      const retention = retentionOf(c.taskId);
      if (retention.minRunsKept > 0 && !boundaries.has(c.taskId)) boundaries.set(c.taskId, await newestRunsBoundary(dataSource.manager, c.taskId, retention.minRunsKept));
      if (mayPurge(c, retention, now, boundaries.get(c.taskId) ?? null, liveFlows)) ids.push(c.id);
    }
    if (ids.length === 0) return;
    report.runs += await step(() => inTransaction(dataSource, (em) => deleteEndedRuns(em, ids), { isolation: 'READ COMMITTED' }));
  };

  // The sweep at the tenant's retention.
  const before = Math.min(now - tenant.runsMs, cursor.settledUntil);
  let position = cursor.purgePosition;
  for (let i = 0; i < MAX_BATCHES_PER_PASS; i++) {
    const candidates = await findPurgeCandidates(dataSource.manager, { tenantId, from: position, before, limit: settings.batch });
    if (candidates.length > 0) await purgeBatch(candidates);
    if (candidates.length < settings.batch) {
      position = 0;
      break;
    }
    const last = candidates[candidates.length - 1].finishedAt;
    // A full batch of one instant (all kept): step over it rather than read it again forever.
    position = last > position ? last : last + 1;
    if (i === MAX_BATCHES_PER_PASS - 1) report.more = true;
  }
  if (position !== cursor.purgePosition && !(await advanceHistoryCursor(dataSource.manager, tenantId, worker, { purge_position: position }))) throw new LostHistoryLeaseError(tenantId);

  // Tasks that keep their runs for less than their tenant.
  for (const [taskId, retention] of tasks) {
    if (retention.runsMs >= tenant.runsMs) continue;
    const candidates = await findTaskPurgeCandidates(dataSource.manager, { taskId, before: Math.min(now - retention.runsMs, cursor.settledUntil), limit: settings.batch });
    if (candidates.length > 0) await purgeBatch(candidates);
  }

  // Logs, by their run's end.
  let logsFrom = cursor.logsPurgedUntil;
  const logsBefore = Math.min(now - tenant.logsMs, cursor.settledUntil);
  for (let i = 0; i < MAX_BATCHES_PER_PASS && logsFrom < logsBefore; i++) {
    const { next, deleted } = await step(() => inTransaction(dataSource, (em) => purgeRunLogs(em, { tenantId, from: logsFrom, before: logsBefore, limit: settings.batch }), { isolation: 'READ COMMITTED' }));
    report.logs += deleted;
    logsFrom = next;
    if (i === MAX_BATCHES_PER_PASS - 1 && logsFrom < logsBefore) report.more = true;
  }
  if (logsFrom !== cursor.logsPurgedUntil && !(await advanceHistoryCursor(dataSource.manager, tenantId, worker, { logs_purged_until: logsFrom }))) throw new LostHistoryLeaseError(tenantId);

  for (let i = 0; i < MAX_BATCHES_PER_PASS; i++) {
    const deleted = await step(() => inTransaction(dataSource, (em) => purgeAlarms(em, { tenantId, before: now - tenant.alarmsMs, limit: settings.batch }), { isolation: 'READ COMMITTED' }));
    report.alarms += deleted;
    if (deleted < settings.batch) break;
    if (i === MAX_BATCHES_PER_PASS - 1) report.more = true;
  }
  for (let i = 0; i < MAX_BATCHES_PER_PASS; i++) {
    const deleted = await step(() => inTransaction(dataSource, (em) => purgeEvents(em, { tenantId, before: now - tenant.runsMs, limit: settings.batch }), { isolation: 'READ COMMITTED' }));
    report.events += deleted;
    if (deleted < settings.batch) break;
    if (i === MAX_BATCHES_PER_PASS - 1) report.more = true;
  }

  // Idempotency keys of windowed submissions live as long as an ordinary run's key (its run): the runs' retention.
  for (let i = 0; i < MAX_BATCHES_PER_PASS; i++) {
    const deleted = await step(() => inTransaction(dataSource, (em) => purgeSubmissionKeys(em, { tenantId, before: now - tenant.runsMs, limit: settings.batch }), { isolation: 'READ COMMITTED' }));
    report.submissionKeys += deleted;
    if (deleted < settings.batch) break;
    if (i === MAX_BATCHES_PER_PASS - 1) report.more = true;
  }

  // An inbound delivery's signature is refused again for as long as its event is kept.
  for (let i = 0; i < MAX_BATCHES_PER_PASS; i++) {
    const deleted = await step(() => inTransaction(dataSource, (em) => purgeInboundSignatures(em, { tenantId, before: now - tenant.runsMs, limit: settings.batch }), { isolation: 'READ COMMITTED' }));
    report.inboundSignatures += deleted;
    if (deleted < settings.batch) break;
    if (i === MAX_BATCHES_PER_PASS - 1) report.more = true;
  }

  for (let i = 0; i < MAX_BATCHES_PER_PASS; i++) {
    const deleted = await step(() => inTransaction(dataSource, (em) => purgeDownExecutors(em, { tenantId, before: now - tenant.runsMs, limit: settings.batch }), { isolation: 'READ COMMITTED' }));
    report.executors += deleted;
    if (deleted < settings.batch) break;
    if (i === MAX_BATCHES_PER_PASS - 1) report.more = true;
  }

  // Keys' rows no run took for an hour, once at rest (their bucket full, no throttle period going): a keyed task's table would only grow.
  const unusedBefore = now - KEY_ROWS_UNUSED_MS;
  let after: { usedAt: number | null; scope: string; key: string } | null = null;
  for (let i = 0; i < MAX_BATCHES_PER_PASS; i++) {
    const unused = await findUnusedRunKeys(dataSource.manager, { tenantId, before: unusedBefore, after, limit: settings.batch });
    const resting = unused.filter((k) => keyAtRest(k.stored, k.rules, now));
    if (resting.length > 0) report.runKeys += await step(() => inTransaction(dataSource, (em) => deleteRunKeys(em, { tenantId, keys: resting, before: unusedBefore }), { isolation: 'READ COMMITTED' }));
    if (unused.length < settings.batch) break;
    const last = unused[unused.length - 1];
    after = { usedAt: last.usedAt, scope: last.scope, key: last.key };
    if (i === MAX_BATCHES_PER_PASS - 1) report.more = true;
  }

  // Finished webhook deliveries go with the alarms' retention.
  await step(() => purgeWebhookDeliveries(dataSource.manager, { tenantId, before: now - tenant.alarmsMs, limit: settings.batch * 4 }));

  // The tenant's audit records past the operator's ceiling, and those of no tenant (operators' own changes) with them.
  for (const owner of [tenantId, null]) {
    for (let i = 0; i < MAX_BATCHES_PER_PASS; i++) {
      const deleted = await step(() => inTransaction(dataSource, (em) => purgeAuditRecords(em, { tenantId: owner, before: now - settings.auditRetentionMs, limit: settings.batch }), { isolation: 'READ COMMITTED' }));
      report.audit += deleted;
      if (deleted < settings.batch) break;
      if (i === MAX_BATCHES_PER_PASS - 1) report.more = true;
    }
  }

  for (const [spanMs, keptMs] of [
    [MINUTE_MS, MINUTE_ROLLUPS_KEPT_MS],
    [HOUR_MS, settings.statsRetentionMs],
  ] as const) {
    const deleted = await purgeRollups(dataSource.manager, { tenantId, spanMs, before: now - keptMs, limit: settings.batch * 4 });
    report.rollups += deleted;
  }
  return report;
}
