/** The shapes of the console API (see /api/docs) used by the web console. */

export const TRIGGER_KINDS = ['MANUAL', 'FIXED_RATE', 'FIXED_DELAY', 'CRON', 'ONCE'] as const;
export type TriggerKind = (typeof TRIGGER_KINDS)[number];
export const MISFIRE_POLICIES = ['FIRE_ONCE_NOW', 'FIRE_ALL_MISSED', 'SKIP'] as const;
export const CONCURRENCY_POLICIES = ['ALLOW', 'FORBID', 'REPLACE'] as const;
export const FAN_OUT_MODES = ['SINGLE', 'BROADCAST', 'SHARDED'] as const;
export const FAN_OUT_FAIL_WHEN = ['ANY_SHARD_FAILS', 'ALL_SHARDS_FAIL'] as const;
export const ALARM_TYPES = ['START_LATE', 'TIMEOUT', 'FAILED', 'RETRYING', 'EXECUTOR_DOWN', 'EXECUTOR_UP', 'ENGINE_DOWN', 'DISPATCH_REJECTED', 'TASK_PAUSED', 'BUSINESS'] as const;
export const RUN_STATES = ['PENDING', 'CLAIMED', 'DISPATCHED', 'ACCEPTED', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'RETRY_WAIT', 'CANCELLED', 'SKIPPED'] as const;
export type RunState = (typeof RUN_STATES)[number];
export const ACTIVE_STATES: readonly RunState[] = ['PENDING', 'CLAIMED', 'DISPATCHED', 'ACCEPTED', 'RETRY_WAIT'];
export const DEPENDENCY_CONDITIONS = ['ON_SUCCESS', 'ON_FAILURE', 'ON_COMPLETION'] as const;

export interface Trigger {
  kind: TriggerKind;
  intervalMs?: number;
  delayMs?: number;
  expression?: string;
  timeZone?: string;
  at?: number;
}

export interface Task {
  id: number;
  name: string;
  group: string;
  executorApp: string;
  handler: string;
  params: unknown;
  trigger: Trigger;
  startAt: number | null;
  endAt: number | null;
  maxFires: number | null;
  misfirePolicy: string;
  misfireThresholdMs: number;
  priority: number;
  concurrencyPolicy: string;
  timeoutMs: number;
  startDeadlineMs: number;
  retry: { maxAttempts: number; backoffBaseMs: number; backoffMaxMs: number; jitter: number };
  calendarName: string | null;
  alarms: { types: string[]; silenceMs: number };
  paused: boolean;
  pauseAfterFailures: number | null;
  fanOut: { mode: (typeof FAN_OUT_MODES)[number]; shards: number | null; failWhen: (typeof FAN_OUT_FAIL_WHEN)[number] };
  fireCount: number;
  nextFireAt: number | null;
  createdAt: number;
  updatedAt: number;
  version: number;
}

/** A task as saved (POST/PUT/PATCH): warnings say it would not run as things stand (no live executor offers its handler). */
export interface SavedTask extends Task {
  warnings: Array<{ field: string; reason: string }>;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface LastRun {
  id: number;
  state: RunState;
  scheduledAt: number;
  finishedAt: number | null;
  error: string | null;
}

export interface TaskSummary {
  taskId: number;
  lastRun: LastRun | null;
  lastResult: LastRun | null;
}

export interface Run {
  id: number;
  taskId: number;
  taskName: string | null;
  state: RunState;
  cause: 'SCHEDULE' | 'MANUAL' | 'DEPENDENCY' | 'BACKFILL' | 'SHARD';
  flowId: number | null;
  parentRunId: number | null;
  shardIndex: number | null;
  shardTotal: number | null;
  pinnedExecutorId: number | null;
  attempt: number;
  priority: number;
  scheduledAt: number;
  dueAt: number;
  executorId: number | null;
  dispatchedAt: number | null;
  acceptedAt: number | null;
  startedAt: number | null;
  finishedAt: number | null;
  error: string | null;
  progress: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface RunDetail extends Run {
  params: unknown;
  result: unknown;
  errorDetail: string | null;
  /** The executor it went to; null before dispatch or when the executor is gone. */
  executor: { id: number; app: string; url: string; state: string } | null;
  logs: RunLog[];
}

export interface Dependency {
  id: number;
  parentTaskId: number;
  parentName: string;
  childTaskId: number;
  childName: string;
  condition: string;
  createdAt: number;
}

export interface Executor {
  id: number;
  app: string;
  url: string;
  capacity: number;
  inFlight: number;
  state: 'UP' | 'DOWN';
  registeredAt: number;
  heartbeatAt: number;
  /** Which executor secret its latest heartbeat used (PREVIOUS: valid until the rotation's window ends; OUTDATED: refused, needs the new one). */
  secret: 'CURRENT' | 'PREVIOUS' | 'OUTDATED' | 'UNKNOWN';
  /** The handlers its last heartbeat offered. */
  handlers: string[];
}

/** GET /executors/connection: what an executor needs besides its secret. */
export interface ExecutorConnection {
  tenantId: string;
  engineGroup: string;
  engineUrls: string[];
  apps: string[];
  secretVersion: number;
  previousSecretExpiresAt: number | null;
}

/** The answer to a secret rotation: the only time the new secret is shown. */
export interface RotatedExecutorSecret {
  tenantId: string;
  executorSecret: string;
  secretVersion: number;
  previousSecretExpiresAt: number | null;
}

export interface Alarm {
  id: number;
  type: string;
  severity: 'INFO' | 'WARNING' | 'CRITICAL';
  taskId: number | null;
  runId: number | null;
  executorId: number | null;
  message: string;
  data: unknown;
  count: number;
  raisedAt: number;
  ackedAt: number | null;
  ackedBy: string | null;
}

export interface Distribution {
  count: number;
  p50: number | null;
  p95: number | null;
}

export interface Stats {
  taskId: number | null;
  windowMs: number;
  from: number;
  to: number;
  total: number;
  counts: Record<RunState, number>;
  successRate: number | null;
  durationMs: Distribution;
  latenessMs: Distribution;
  retryWaitMs: Distribution;
  percentileError: number;
  sampled: boolean;
}

export interface SeriesBucket {
  t: number;
  counts: Partial<Record<RunState, number>>;
  successRate: number | null;
  durationP50: number | null;
  durationP95: number | null;
  latenessP50: number | null;
  latenessP95: number | null;
}

export interface StatsSeries {
  taskId: number | null;
  from: number;
  to: number;
  bucketMs: number;
  buckets: SeriesBucket[];
}

export interface Tenant {
  id: string;
  name: string;
  engineGroup: string;
  ratePerSec: number;
  burst: number;
  /** Where the tenant's executors may live; null: any URL but link-local and metadata addresses. */
  executorNetworks: string[] | null;
  createdAt: number;
  executorSecret?: string;
  /** On create with a first admin only. */
  admin?: User;
}

export interface User {
  id: number;
  username: string;
  role: 'OPERATOR' | 'TENANT_ADMIN' | 'TENANT_VIEWER';
  tenantId: string | null;
  disabled: boolean;
  createdAt: number;
}

export interface EngineGroup {
  name: string;
  description: string;
  createdAt: number;
  tenants: string[];
}

export interface EngineNode {
  id: string;
  groups: string[];
  host: string;
  pid: number;
  url: string;
  slots: number;
  startedAt: number;
  heartbeatAt: number;
  state: string;
}

export interface ApiKey {
  id: number;
  tenantId: string;
  name: string;
  prefix: string;
  role: string;
  createdAt: number;
  revokedAt: number | null;
  key?: string;
}

export interface CronPreview {
  expression: string;
  timeZone: string;
  next: number[];
}

/** A line of a run's log (GET /api/runs/{id}, and the live tail's `run:logs` events). */
export interface RunLog {
  id: number;
  attempt: number;
  at: number;
  level: string;
  message: string;
}
