import type { EntityTarget, ObjectLiteral } from 'typeorm';
import { beforeEach, describe, expect, it } from 'vitest';
import { TEST_DATABASES, useTestDatabase } from '../../../test/support/databases';
import {
  AlarmEntity,
  ApiKeyEntity,
  AuditRecordEntity,
  CalendarEntity,
  ClusterSecretEntity,
  EngineGroupEntity,
  EngineNodeEntity,
  EventEntity,
  ExecutorEntity,
  HistoryCursorEntity,
  InboundWebhookEntity,
  InboundWebhookSignatureEntity,
  RetentionPolicyEntity,
  RunApprovalEntity,
  RunEntity,
  RunAttemptEntity,
  RunAttemptReportEntity,
  RunLogEntity,
  RunRollupEntity,
  SessionEntity,
  LoginThrottleEntity,
  RunKeyEntity,
  SubmissionKeyEntity,
  TaskDependencyEntity,
  TaskEntity,
  TaskVersionEntity,
  TenantEntity,
  UserEntity,
  WebhookChannelEntity,
  WebhookDeliveryEntity,
} from './entities';

/** An instant with milliseconds, and the largest integer a BIGINT column must give back exactly. */
const T = 1_732_240_000_123;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/**
 * One fully filled row per entity (every nullable column set), and the same with every
 * nullable column null. Generated ids are left out and checked separately.
 */
const SAMPLES: Array<{ entity: EntityTarget<ObjectLiteral>; name: string; full: ObjectLiteral; nulls?: ObjectLiteral }> = [
  {
    entity: TenantEntity,
    name: 'tenants',
    full: {
      id: 'acme',
      name: 'ACME Corp ☂',
      engineGroup: 'default',
      executorSecret: 's3cr3t',
      executorSecretVersion: 3,
      previousExecutorSecret: 'old-s3cr3t',
      previousSecretExpiresAt: T + 86_400_000,
      ratePerSec: 50,
      burst: 100,
      claimShare: 3,
      executorNetworks: ['10.0.0.0/8', '*.svc.cluster.local'],
      backlogAlarmMs: 30_000,
      backlogLateSince: T + 5,
      ssoRequired: true,
      xxlJobAccessToken: 'xxl-token-0123456789',
      createdAt: T,
    },
    nulls: { id: 'beta', name: 'Beta', engineGroup: 'default', executorSecret: 'x', executorSecretVersion: 1, previousExecutorSecret: null, previousSecretExpiresAt: null, ratePerSec: 1, burst: 1, claimShare: 1, executorNetworks: null, backlogAlarmMs: null, backlogLateSince: null, ssoRequired: false, xxlJobAccessToken: null, createdAt: T },
  },
  { entity: EngineGroupEntity, name: 'engine_groups', full: { name: 'default', description: 'the usual', createdAt: T } },
  {
    entity: EngineNodeEntity,
    name: 'engine_nodes',
    full: {
      id: 'engine-1',
      groups: 'default,batch',
      host: 'node-a',
      pid: 4242,
      url: 'http://127.0.0.1:7000',
      slots: 64,
      startedAt: T,
      heartbeatAt: T + 1,
      state: 'UP',
      clockOffsetMs: -1_234,
    },
  },
  {
    entity: UserEntity,
    name: 'users',
    full: { tenantId: 'acme', loginTenant: 'acme', username: 'alice', passwordHash: '$2b$10$abc', role: 'TENANT_ADMIN', disabled: true, createdAt: T, language: 'zh-CN', timeZone: 'Asia/Shanghai', theme: 'dark', ssoProvider: 'oidc', ssoSubject: 'sub-Ωmega-42' },
    nulls: { tenantId: null, loginTenant: '', username: 'root', passwordHash: '$2b$10$def', role: 'OPERATOR', disabled: false, createdAt: T, language: null, timeZone: null, theme: null, ssoProvider: null, ssoSubject: null },
  },
  { entity: SessionEntity, name: 'sessions', full: { userId: 1, tokenHash: 'a'.repeat(64), createdAt: T, expiresAt: T + 3600_000 } },
  { entity: RunKeyEntity, name: 'run_keys', full: { tenantId: 'acme', keyScope: 'g:customer-sync', keyValue: 'c-1 🔑', rulesTaskId: 7, tokensMilli: 1500, refilledAt: T, throttleStartedAt: T + 1, throttleCount: 3, throttleTrailingAt: T + 60_000, usedAt: T + 2 }, nulls: { tenantId: 'globex', keyScope: 't:8', keyValue: '', rulesTaskId: null, tokensMilli: null, refilledAt: null, throttleStartedAt: null, throttleCount: null, throttleTrailingAt: null, usedAt: null } },
  { entity: SubmissionKeyEntity, name: 'submission_keys', full: { taskId: 7, fireKey: 'k:order-42:refund', tenantId: 'acme', runId: 9_007_199_254_740_000, createdAt: T }, nulls: { taskId: 8, fireKey: 'e:x', tenantId: 'globex', runId: null, createdAt: T } },
  { entity: InboundWebhookSignatureEntity, name: 'inbound_webhook_signatures', full: { tenantId: 'acme', signature: 'd'.repeat(64), deliveryKey: 'h7:72d3162e-cc78-11e3-81ab-4c9367dc0958', receivedAt: T }, nulls: { tenantId: 'globex', signature: 'e'.repeat(64), deliveryKey: null, receivedAt: T } },
  { entity: ClusterSecretEntity, name: 'cluster_secrets', full: { name: 'metrics-tenant-label', secret: 'e'.repeat(64), createdAt: T } },
  { entity: LoginThrottleEntity, name: 'login_throttle', full: { key: 'f'.repeat(64), failures: 6, lastFailureAt: T, waitUntil: T + 120_000 } },
  {
    entity: ApiKeyEntity,
    name: 'api_keys',
    full: { tenantId: 'acme', name: 'ci', prefix: 'bk_abcd', keyHash: 'b'.repeat(64), role: 'TENANT_VIEWER', ownerUserId: 7, createdAt: T, revokedAt: T + 5 },
    nulls: { tenantId: 'acme', name: 'ci2', prefix: 'bk_efgh', keyHash: 'c'.repeat(64), role: 'TENANT_ADMIN', ownerUserId: null, createdAt: T, revokedAt: null },
  },
  {
    entity: ExecutorEntity,
    name: 'executors',
    full: {
      tenantId: 'acme',
      app: 'billing',
      url: 'http://10.0.0.5:8080/baton',
      capacity: 16,
      queueLimit: 100,
      inFlight: 3,
      protocolVersion: 2,
      wire: 'xxl-job',
      state: 'UP',
      registeredAt: T,
      heartbeatAt: T + 10,
      handlers: ['charge', 'refund'],
      handlerSchemas: { charge: { type: 'object', required: ['amount'], properties: { amount: { type: 'number', minimum: 0 } } } },
      secretVersion: 2,
      handBacks: 3,
      stoppedAt: T + 20,
    },
    nulls: { tenantId: 'acme', app: 'billing', url: 'http://10.0.0.6:8080', capacity: 1, queueLimit: 0, inFlight: 0, protocolVersion: 1, wire: 'baton', state: 'DOWN', registeredAt: T, heartbeatAt: T, secretVersion: null, handlers: null, handlerSchemas: null, handBacks: 0, stoppedAt: null },
  },
  {
    entity: CalendarEntity,
    name: 'calendars',
    full: { tenantId: 'acme', name: 'holidays', timeZone: 'Europe/Paris', dates: ['2025-12-25', '2026-01-01'], createdAt: T },
  },
  {
    entity: TaskEntity,
    name: 'tasks',
    full: {
      tenantId: 'acme',
      engineGroup: 'default',
      name: 'nightly 🚀 report',
      groupName: 'reports',
      executorApp: 'billing',
      handler: 'report.build',
      params: { region: 'eu', limits: [1, 2.5, null], nested: { ok: true, text: 'ünïcødé "quoted"' } },
      triggerKind: 'CRON',
      cronExpression: '0 30 2 * * *',
      eventName: 'order.paid',
      eventFilter: { 'customer.tier': 'gold' },
      eventParams: { customerId: 'customer.id' },
      timeZone: 'Asia/Shanghai',
      cronRepeatedTime: 'ONCE_EARLIER',
      cronSkippedTime: 'FIRE_LATE',
      intervalMs: MAX_SAFE,
      onceAt: T + 1,
      startAt: T + 2,
      endAt: T + 3,
      maxFires: 10,
      fireCount: 2,
      misfirePolicy: 'FIRE_ONCE_NOW',
      misfireThresholdMs: 5000,
      priority: -7,
      concurrencyPolicy: 'FORBID',
      timeoutMs: 300_000,
      startDeadlineMs: 10_000,
      onStartLate: 'GIVE_UP',
      retryMaxAttempts: 3,
      retryBackoffBaseMs: 1000,
      retryBackoffMaxMs: 60_000,
      retryJitterPermille: 250,
      calendarId: 1,
      alarmTypes: ['FAILED', 'TIMEOUT'],
      alarmSilenceMs: 60_000,
      paused: true,
      pauseAfterFailures: 5,
      importedFrom: `quartz:scheduler/QRTZ_/Legacy trigger ${'g'.repeat(190)}.${'t'.repeat(190)}`,
      fanOutMode: 'SHARDED',
      fanOutShards: 1000,
      fanOutFailWhen: 'ALL_SHARDS_FAIL',
      keyConcurrency: { key: 'customer.id', limit: 2, onLimit: 'QUEUE' },
      keyRate: { key: 'customer.id', perSecond: 0.5, burst: 3 },
      keyDebounce: { key: 'customer.id', quietMs: 2000, maxWaitMs: 20_000 },
      keyThrottle: { key: 'customer.id', limit: 2, periodMs: 60_000, keep: 'FIRST' },
      backfillCancels: 2,
      nextFireAt: T + 4,
      createdAt: T,
      updatedAt: T + 5,
      version: 3,
      managedHash: 'f'.repeat(64),
    },
    nulls: {
      tenantId: 'acme',
      engineGroup: 'default',
      name: 'manual',
      groupName: 'default',
      executorApp: 'billing',
      handler: 'noop',
      params: {},
      triggerKind: 'MANUAL',
      cronExpression: null,
      eventName: null,
      eventFilter: null,
      eventParams: null,
      timeZone: null,
      cronRepeatedTime: null,
      cronSkippedTime: null,
      intervalMs: null,
      onceAt: null,
      startAt: null,
      endAt: null,
      maxFires: null,
      fireCount: 0,
      misfirePolicy: 'SKIP',
      misfireThresholdMs: 5000,
      priority: 0,
      concurrencyPolicy: 'ALLOW',
      timeoutMs: 1000,
      onStartLate: 'ALARM',
      startDeadlineMs: 1000,
      retryMaxAttempts: 0,
      retryBackoffBaseMs: 0,
      retryBackoffMaxMs: 0,
      retryJitterPermille: 0,
      calendarId: null,
      alarmTypes: [],
      alarmSilenceMs: 0,
      paused: false,
      pauseAfterFailures: null,
      importedFrom: null,
      fanOutMode: 'SINGLE',
      fanOutShards: null,
      fanOutFailWhen: 'ANY_SHARD_FAILS',
      keyConcurrency: null,
      keyRate: null,
      keyDebounce: null,
      keyThrottle: null,
      backfillCancels: 0,
      nextFireAt: null,
      createdAt: T,
      updatedAt: T,
      version: 1,
      managedHash: null,
    },
  },
  {
    entity: TaskDependencyEntity,
    name: 'task_dependencies',
    full: { tenantId: 'acme', parentTaskId: 1, childTaskId: 2, condition: 'ON_SUCCESS', approval: { role: 'TENANT_ADMIN', users: ['alice'], timeoutMs: 3_600_000, onTimeout: 'REJECT' }, createdAt: T },
    nulls: { tenantId: 'acme', parentTaskId: 1, childTaskId: 3, condition: 'ON_FAILURE', approval: null, createdAt: T },
  },
  {
    entity: RunApprovalEntity,
    name: 'run_approvals',
    full: { runId: MAX_SAFE, tenantId: 'acme', role: 'TENANT_VIEWER', users: ['alice', 'api-key:chatops'], onTimeout: 'APPROVE', deadlineAt: T + 1, dueAt: T + 1, decision: 'REJECT', decidedBy: 'alice', decidedAt: T, comment: '不行 — too high', createdAt: T },
    nulls: { runId: 1, tenantId: 'acme', role: null, users: [], onTimeout: 'REJECT', deadlineAt: T, dueAt: null, decision: null, decidedBy: null, decidedAt: null, comment: null, createdAt: T },
  },
  {
    entity: RunEntity,
    name: 'runs',
    full: {
      tenantId: 'acme',
      taskId: 1,
      engineGroup: 'default',
      state: 'SUCCEEDED',
      cause: 'SCHEDULE',
      fireKey: `s:${T}`,
      flowId: MAX_SAFE,
      parentRunId: MAX_SAFE - 1,
      attempt: 2,
      priority: 5,
      params: [1, 'two', { three: 3 }],
      scheduledAt: T,
      dueAt: T + 1,
      instantAt: T,
      lateFromAt: T + 1,
      claimedBy: 'engine-1',
      leaseUntil: T + 2,
      executorId: 1,
      dispatchedAt: T + 3,
      firstDispatchedAt: T + 2,
      handBacks: 3,
      acceptedAt: T + 4,
      startedAt: T + 5,
      finishedAt: T + 6,
      finishedClock: 'executor',
      result: { rows: 12, ok: true },
      error: 'first attempt: ECONNRESET',
      progress: 100,
      parentResults: '{"extract":{"rows":42}}',
      flowParams: '{"day":"2026-11-24"}',
      shardIndex: 999,
      shardTotal: 1000,
      pinnedExecutorId: 7,
      deadlineAt: T + 8,
      lateAlarmedAt: T + 9,
      traceParent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      runKey: 'ключ 🔑 c-1',
      keyScope: 'g:customer-sync',
      windowUntil: T + 10,
      withdrawal: 'UNSETTLED',
      createdAt: T,
      updatedAt: T + 7,
    },
    nulls: {
      tenantId: 'acme',
      taskId: 1,
      engineGroup: 'default',
      state: 'PENDING',
      cause: 'MANUAL',
      fireKey: 'm:0b6f0e1c-1a1b-4c5d-9e8f-000000000001',
      flowId: null,
      parentRunId: null,
      attempt: 1,
      priority: 0,
      params: null,
      scheduledAt: T,
      dueAt: T,
      instantAt: null,
      lateFromAt: null,
      claimedBy: null,
      leaseUntil: null,
      executorId: null,
      dispatchedAt: null,
      firstDispatchedAt: null,
      handBacks: 0,
      acceptedAt: null,
      startedAt: null,
      finishedAt: null,
      finishedClock: null,
      result: null,
      error: null,
      progress: null,
      parentResults: null,
      flowParams: null,
      shardIndex: null,
      shardTotal: null,
      pinnedExecutorId: null,
      deadlineAt: null,
      lateAlarmedAt: null,
      traceParent: null,
      runKey: null,
      keyScope: null,
      windowUntil: null,
      withdrawal: null,
      createdAt: T,
      updatedAt: T,
    },
  },
  {
    entity: RunAttemptEntity,
    name: 'run_attempts',
    full: { tenantId: 'acme', runId: MAX_SAFE, attempt: 1, state: 'FAILED', executorId: 3, dueAt: T, dispatchedAt: T + 1, acceptedAt: T + 2, startedAt: T + 3, finishedAt: T + 4, finishedClock: 'engine', error: 'boom\n  at handler', endedAt: T + 5 },
    nulls: { tenantId: 'acme', runId: 1, attempt: 2, state: 'TIMED_OUT', executorId: null, dueAt: T, dispatchedAt: null, acceptedAt: null, startedAt: null, finishedAt: null, finishedClock: null, error: null, endedAt: T },
  },
  { entity: RunAttemptReportEntity, name: 'run_attempt_reports', full: { runId: MAX_SAFE, attempt: 3, tenantId: 'acme', takenAt: T } },
  {
    entity: RunLogEntity,
    name: 'run_logs',
    full: { tenantId: 'acme', runId: MAX_SAFE, attempt: 1, at: T, level: 'INFO', message: 'line one\nline two ✓' },
  },
  {
    entity: RunRollupEntity,
    name: 'run_rollups',
    full: { tenantId: 'acme', taskId: 0, spanMs: 3_600_000, bucketStart: T, succeeded: 7, failed: 1, timedOut: 0, cancelled: 2, skipped: 3, earlyStarts: 4, durationHist: '3:2,40:6', latenessHist: '0:8', retryWaitHist: '' },
  },
  {
    entity: HistoryCursorEntity,
    name: 'history_cursors',
    full: { tenantId: 'acme', rolledUntil: T, settledUntil: T - 60_000, logsPurgedUntil: 0, purgePosition: T - 1, purgeDueAt: T + 600_000, worker: 'node-1', workerUntil: T + 60_000 },
    nulls: { tenantId: 'beta', rolledUntil: 0, settledUntil: 0, logsPurgedUntil: 0, purgePosition: 0, purgeDueAt: 0, worker: null, workerUntil: 0 },
  },
  {
    entity: RetentionPolicyEntity,
    name: 'retention_policies',
    full: { tenantId: 'acme', taskId: 12, runsMs: 86_400_000, logsMs: 3_600_000, alarmsMs: MAX_SAFE, minRunsKept: 10, updatedAt: T },
    nulls: { tenantId: 'beta', taskId: 0, runsMs: null, logsMs: null, alarmsMs: null, minRunsKept: null, updatedAt: T },
  },
  {
    entity: WebhookChannelEntity,
    name: 'webhook_channels',
    full: { tenantId: 'acme', name: 'ops', url: 'https://hooks.example.com/baton', secret: 'whsec_x', alarmTypes: ['FAILED', 'TIMEOUT'], minSeverity: 'WARNING', createdAt: T },
    nulls: { tenantId: 'acme', name: 'all', url: 'http://127.0.0.1:9/h', secret: 'whsec_y', alarmTypes: null, minSeverity: 'INFO', createdAt: T },
  },
  {
    entity: WebhookDeliveryEntity,
    name: 'webhook_deliveries',
    full: { tenantId: 'acme', channelId: 1, alarmId: MAX_SAFE, auditId: MAX_SAFE, alarmCount: 3, attempts: 2, nextAt: T + 1, deliveredAt: T + 2, failedAt: T + 3, lastError: 'HTTP 503', createdAt: T },
    nulls: { tenantId: 'acme', channelId: 2, alarmId: null, auditId: null, alarmCount: 1, attempts: 0, nextAt: T, deliveredAt: null, failedAt: null, lastError: null, createdAt: T },
  },
  {
    entity: EventEntity,
    name: 'events',
    full: { tenantId: 'acme', name: 'order.paid', payload: { order: { id: 'o-1' } }, idempotencyKey: 'pay-1', runIds: [1, MAX_SAFE], receivedAt: T },
    nulls: { tenantId: 'acme', name: 'order.paid', payload: {}, idempotencyKey: null, runIds: [], receivedAt: T },
  },
  {
    entity: InboundWebhookEntity,
    name: 'inbound_webhooks',
    full: { publicId: `ih_${'A'.repeat(43)}`, tenantId: 'acme', name: 'github', eventName: 'repo.push', scheme: 'GITHUB', secret: 'x'.repeat(128), createdAt: T },
  },
  {
    entity: AuditRecordEntity,
    name: 'audit_log',
    full: { at: T, tenantId: 'acme', actorKind: 'apiKey', actorName: 'api-key:ci', actorUserId: 1, actorApiKeyId: 2, sourceAddress: '::ffff:10.0.0.1', action: 'task.update', objectType: 'task', objectId: '42', before: { priority: 0 }, after: { priority: 9 } },
    nulls: { at: T, tenantId: null, actorKind: 'anonymous', actorName: 'mallory', actorUserId: null, actorApiKeyId: null, sourceAddress: null, action: 'auth.login-failed', objectType: 'user', objectId: null, before: null, after: null },
  },
  {
    entity: TaskVersionEntity,
    name: 'task_versions',
    full: { tenantId: 'acme', taskId: 1, version: 3, at: T, actorName: 'ann', definition: { name: 'nightly', params: { region: 'eu' } } },
    nulls: { tenantId: 'acme', taskId: 2, version: 1, at: T, actorName: null, definition: {} },
  },
  {
    entity: AlarmEntity,
    name: 'alarms',
    full: {
      uid: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
      tenantId: 'acme',
      type: 'TIMEOUT',
      severity: 'CRITICAL',
      taskId: 1,
      runId: MAX_SAFE,
      executorId: 1,
      message: 'run 42 timed out after 300 s',
      data: { timeoutMs: 300_000 },
      count: 4,
      raisedAt: T,
      publishedAt: T + 1,
      publishedCount: 3,
      ackedAt: T + 2,
      ackedBy: 'alice',
    },
    nulls: {
      uid: null,
      tenantId: 'acme',
      type: 'BUSINESS',
      severity: 'INFO',
      taskId: null,
      runId: null,
      executorId: null,
      message: 'hello',
      data: null,
      count: 1,
      raisedAt: T,
      publishedAt: null,
      publishedCount: null,
      ackedAt: null,
      ackedBy: null,
    },
  },
];

describe.each(TEST_DATABASES)('entities on %s', (kind) => {
  const db = useTestDatabase(kind);
  beforeEach(() => db.clear());

  it('covers every entity', () => {
    expect(SAMPLES.map((s) => s.name).sort()).toEqual(db.dataSource.entityMetadatas.map((m) => m.tableName).sort());
  });

  it.each(SAMPLES.map((s) => [s.name, s] as const))('%s: a row reads back exactly as written', async (_name, sample) => {
    const repo = db.dataSource.getRepository(sample.entity);
    const primary = repo.metadata.primaryColumns[0];
    for (const values of [sample.full, ...(sample.nulls ? [sample.nulls] : [])]) {
      const saved = await repo.save(repo.create({ ...values }));
      const id = primary.getEntityValue(saved);
      if (primary.isGenerated) expect(typeof id, 'generated id').toBe('number');
      const loaded = await repo.findOneByOrFail({ [primary.propertyName]: id });
      expect(loaded).toEqual({ ...values, [primary.propertyName]: id });
      // Every number column (BIGINT instants and ids included) comes back as a number, not a string.
      for (const column of repo.metadata.columns) {
        const value = column.getEntityValue(loaded);
        if (typeof column.getEntityValue(values) === 'number' || column === primary) {
          expect(typeof value, column.propertyName).toBe(typeof (column === primary ? id : column.getEntityValue(values)));
        }
      }
    }
  });

  it('defaults: omitted columns take the schema defaults', async () => {
    const tenants = db.dataSource.getRepository(TenantEntity);
    await tenants.insert({ id: 'beta', name: 'Beta', engineGroup: 'default', executorSecret: 'x', createdAt: T });
    expect(await tenants.findOneByOrFail({ id: 'beta' })).toMatchObject({ ratePerSec: 1000, burst: 2000, claimShare: 1, executorSecretVersion: 1, previousExecutorSecret: null, previousSecretExpiresAt: null });
    const groups = db.dataSource.getRepository(EngineGroupEntity);
    await groups.insert({ name: 'g', createdAt: T });
    expect(await groups.findOneByOrFail({ name: 'g' })).toMatchObject({ description: '' });
  });

  it('booleans filter as booleans; generated BIGINT ids are numbers and ascend', async () => {
    const tasks = db.dataSource.getRepository(TaskEntity);
    const base = SAMPLES.find((s) => s.name === 'tasks')!.full;
    await tasks.insert([
      { ...base, name: 'a', paused: true },
      { ...base, name: 'b', paused: false },
    ] as TaskEntity[]);
    expect((await tasks.findBy({ paused: true })).map((t) => t.name)).toEqual(['a']);
    expect((await tasks.findBy({ paused: false })).map((t) => t.name)).toEqual(['b']);

    const runs = db.dataSource.getRepository(RunEntity);
    const run = SAMPLES.find((s) => s.name === 'runs')!.nulls!;
    const first = await runs.save(runs.create({ ...run, fireKey: 'm:1' }));
    const second = await runs.save(runs.create({ ...run, fireKey: 'm:2' }));
    expect(typeof first.id).toBe('number');
    expect(second.id).toBeGreaterThan(first.id);
    const raw = await runs.createQueryBuilder('r').select('MAX(r.id)', 'max').getRawOne<{ max: number | string }>();
    expect(Number(raw?.max)).toBe(second.id);
  });
});
