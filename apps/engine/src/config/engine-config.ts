import { defaultNodeId, ProcessConfig, retentionCeiling } from '@baton/config';
import type { RetentionCeiling } from '@baton/domain';
import type { RoutingKind } from '@baton/scheduling';

export { defaultNodeId };

/**
 * How one engine node runs. Every field has a default; `readEngineConfig` reads them from the
 * environment as the schema says (libs/config/src/schema.ts, docs/CONFIGURATION.md).
 */
export interface EngineConfig {
  /** Baton database URL (`BATON_DB_URL`). Default `sqlite:./data/baton.sqlite`. */
  databaseUrl: string;
  /** Unique id of this node (`BATON_ENGINE_ID`). Default `<hostname>-<pid>-<random>`. */
  nodeId: string;
  /** Engine groups served (`BATON_ENGINE_GROUPS`, comma list). Default `['default']`. */
  groups: string[];
  /** Address the callback API listens on (`BATON_ENGINE_HOST`). Default `127.0.0.1`. */
  host: string;
  /** Port of the callback API, metrics and health (`BATON_ENGINE_PORT`). Default 8090; 0 = any free port. */
  port: number;
  /** URL executors call back on (`BATON_ENGINE_URL`). Default `http://<host>:<bound port>`. */
  publicUrl: string | null;
  /** Dispatches in flight at once: a slot is held from send to ack (`BATON_ENGINE_SLOTS`). Default 64. */
  slots: number;
  /**
   * Slots beyond `slots` kept for runs still on time (`BATON_ENGINE_ON_TIME_SLOTS`): the on-time lane's
   * runs (due alone for their tenant, started ahead of their instant) first, then the newest; a run due
   * alone while a backlog is worked off goes out on time (ready-line.ts, due-queue.ts). Default 4; 0: none.
   */
  onTimeSlots: number;
  /** Fires due within this are planned, and runs due within it claimed ahead into the in-memory queue (`BATON_LOOK_AHEAD_MS`). Default 10 000 ms. */
  lookAheadMs: number;
  /**
   * How long before its instant a run may be sent to an executor that starts it at the instant
   * itself (protocol 2), for runs whose start is only their DISPATCHED mark (`BATON_SEND_AHEAD_MS`).
   * Default 10 000 ms; 0: every run is sent at its instant.
   */
  sendAheadMs: number;
  /** Most runs claimed in one query (`BATON_CLAIM_BATCH`). Default 500. */
  claimBatch: number;
  /** Most runs held in memory at once; claiming pauses above it (`BATON_MAX_HELD`), divided among tenants by fair shares (claimer/claim-turn.ts). Default 20 000. */
  maxHeld: number;
  /** Poll period of the claimer when nothing new was found (`BATON_CLAIM_INTERVAL_MS`). Default 200 ms. */
  claimIntervalMs: number;
  /**
   * Spacing of the claim turns one tenant's wake-ups start beyond a burst of 10 (`BATON_WAKE_FLOOR_MS`,
   * common/wake-floor.ts): those within the allowance at once, the rest coalesced into one at the next
   * allowed time; a console's wake-up that brings its runs' rows is not held (ClaimSignal.wake).
   * Default 20 ms; 0: none.
   */
  wakeFloorMs: number;
  /**
   * How long an executor's 202 waits before the run's ACCEPTED mark is written (`BATON_ACK_HOLD_MS`):
   * a run that ends meanwhile has it written with its outcome (runs/dispatch-marks.ts). Default
   * 250 ms (at most 1 s); 0: at once.
   */
  ackHoldMs: number;
  /**
   * Signed requests of one tenant (callbacks, callback batches, heartbeats, wake-ups, cancel
   * notices) this engine works on at once, keyed by the tenant the signature verified
   * (`BATON_TENANT_REQUESTS_IN_FLIGHT`). Default 4: a fifth of the MySQL pool (20 connections), and
   * as many as the callback reads and commits run at once for all tenants together
   * (CallbacksService), so 4 requests of a tenant keep its callbacks flowing. 0: no bound.
   */
  tenantRequestsInFlight: number;
  /**
   * Signed requests of one tenant that may wait for a place (`BATON_TENANT_REQUESTS_WAITING`);
   * beyond, 429 TENANT_BUSY. Default 256: the SDKs keep at most 2 callback requests and 1
   * heartbeat in flight to an engine, so ~85 executors sending at the same instant; a waiting
   * request costs memory only. 0: none wait.
   */
  tenantRequestsWaiting: number;
  /**
   * Signed requests of one tenant admitted per second, sustained (`BATON_TENANT_REQUEST_RATE`);
   * beyond, 429 TENANT_RATE_LIMITED. Default 2,000/s, above what a heavy tenant sends one engine
   * (~1,700/s): heartbeats (one per executor every 3.3 s: 300/s for 1,000 executors), interim
   * callbacks (at most one a second per running run: 400/s for 200 executors of 4 workers over 2
   * engines), final callbacks (one per run, at most the tenant's dispatch rate on the engine —
   * `rate_per_sec` 1,000 by default — and batched up to 100 a request when they end together),
   * wake-ups (one per tenant per console event-loop turn). 0: no rate bound.
   */
  tenantRequestRate: number;
  /**
   * Requests admitted at once after a quiet spell: the bucket's size (`BATON_TENANT_REQUEST_BURST`).
   * Default 10,000: a 20,000-run burst over 2 engines calls each back 10,000 times even if no
   * callback were batched (the SDKs batch them: ~200 requests).
   */
  tenantRequestBurst: number;
  /** Poll period of the planner (`BATON_PLAN_INTERVAL_MS`). Default 500 ms. */
  planIntervalMs: number;
  /** Most tasks claimed by the planner in one query (`BATON_PLAN_BATCH`). Default 200. */
  planBatch: number;
  /** Lease on a claimed run; renewed while held (`BATON_LEASE_MS`). Default 15 000 ms. */
  leaseMs: number;
  /** Heartbeat period of this node (`BATON_HEARTBEAT_MS`). Default 2000 ms. */
  heartbeatMs: number;
  /** CLOCK_SKEW beyond this offset from the database's clock, ms (BATON_CLOCK_SKEW_ALARM_MS; 0: never). */
  clockSkewAlarmMs: number;
  /** No claims beyond this offset, ms (BATON_CLOCK_SKEW_STOP_MS; 0: never). */
  clockSkewStopMs: number;
  /** A node silent for this long is dead; its leases are taken over (`BATON_ENGINE_DEAD_AFTER_MS`). Default 8000 ms. */
  engineDeadAfterMs: number;
  /**
   * MySQL/MariaDB: period of the check of other engines' liveness locks, so a crashed engine is
   * taken over within about this (`BATON_LIVENESS_POLL_MS`). Default 250 ms; 0 turns the locks off.
   */
  livenessPollMs: number;
  /** An executor silent for this long is DOWN (`BATON_EXECUTOR_DEAD_AFTER_MS`). Default 10 000 ms. */
  executorDeadAfterMs: number;
  /** Accepted runs of a DOWN executor are reconciled after this grace (`BATON_EXECUTOR_GRACE_MS`). Default 30 000 ms. */
  executorGraceMs: number;
  /** Watchdog period (`BATON_WATCHDOG_INTERVAL_MS`). Default 500 ms. */
  watchdogIntervalMs: number;
  /** Executor routing (`BATON_ROUTING`): ROUND_ROBIN, LEAST_BUSY, CONSISTENT_HASH, FAILOVER. Default LEAST_BUSY. */
  routing: RoutingKind;
  /** Timeout of one dispatch POST, send to ack (`BATON_DISPATCH_TIMEOUT_MS`). Default 5000 ms. */
  dispatchTimeoutMs: number;
  /** A task's runs a second on this engine at most (`BATON_TASK_RATE`). Default 0: no cap. */
  taskRatePerSec: number;
  /** The burst of that cap's bucket (`BATON_TASK_BURST`). Default 1000. */
  taskBurst: number;
  /**
   * A tenant's retries a second on this engine beyond the floor, in percent of its first attempts a
   * second ended here over the last 10 s (`BATON_RETRY_BUDGET_PERCENT`, domain RetryBudget). Default 20.
   */
  retryBudgetPercent: number;
  /** A tenant's retries a second on this engine whatever its first attempts (`BATON_RETRY_BUDGET_PER_SEC`). Default 10; 0: no budget. */
  retryBudgetPerSec: number;
  /** Bench only: hold the slot until the run ends (the synchronous dispatch of the MTHPT paper's baseline; `BATON_SYNCHRONOUS_DISPATCH`). Default false. */
  synchronousDispatch: boolean;
  /**
   * ActiveMQ STOMP broker(s) the alarm relay publishes to (`BATON_BROKER_URL`): `stomp://host:61613`,
   * a comma-separated failover list, or `failover:(…)`. Null (default): the in-process alarm bus
   * (embedded mode, where the console shares the process).
   */
  brokerUrl: string | null;
  /**
   * The cluster's other listening addresses, where no executor may be registered (`BATON_CLUSTER_ADDRESSES`,
   * URLs): the consoles of a cluster, a proxy. The engines', the database's and the broker's are known without it.
   */
  clusterAddresses: string[];
  /** Alarms of tenant T go to the topic `<prefix>T` (`BATON_ALARM_TOPIC_PREFIX`). Default `baton.alarms.`. */
  alarmTopicPrefix: string;
  /** Poll period of the alarm relay when no local alarm woke it (`BATON_ALARM_RELAY_INTERVAL_MS`). Default 250 ms. */
  alarmRelayIntervalMs: number;
  /** Most alarms of one tenant published per relay transaction (`BATON_ALARM_RELAY_BATCH`). Default 200. */
  alarmRelayBatch: number;
  /** The cluster's retention ceilings (`BATON_RUN_RETENTION_MS` 30 d, `BATON_LOG_RETENTION_MS` 7 d, `BATON_ALARM_RETENTION_MS` 30 d, `BATON_MAX_RUNS_KEPT` 100). */
  retention: RetentionCeiling;
  /** Hour rollups are kept this long (`BATON_STATS_RETENTION_MS`). Default 400 days. */
  statsRetentionMs: number;
  /** `BATON_AUDIT_RETENTION_MS` (365 d): the audit log's records are purged this long after they were written. */
  auditRetentionMs: number;
  /** Period of the history job (`BATON_HISTORY_INTERVAL_MS`). Default 10 s. */
  historyIntervalMs: number;
  /** Rows per purge transaction (`BATON_PURGE_BATCH`). Default 500. */
  purgeBatch: number;
  /** Period of the read of the tenants' load: per-tenant metrics, BACKLOG_LATE (`BATON_LOAD_SAMPLE_MS`). Default 5000 ms. */
  loadSampleMs: number;
  /** Tenants labelled on their own in the per-tenant load metrics, the rest under `_other` (`BATON_LOAD_METRIC_TENANTS`). Default 50. */
  loadMetricTenants: number;
  /** The bearer token `GET /metrics` requires, which also lets its series name tenants (`BATON_METRICS_TOKEN`). Default null: open, tenants labelled by an opaque id keyed with the cluster's secret (MetricsTenantLabels). */
  metricsToken: string | null;
  /** BACKLOG_LATE when a tenant's oldest due run waits longer than this, unless the tenant has its own (`BATON_BACKLOG_ALARM_MS`). Default 60 000 ms; 0: off. */
  backlogAlarmMs: number;
}

/**
 * Reads the engine configuration from the environment through the schema (libs/config): a bad
 * value throws ConfigError naming the variable, the value and the reason. `overrides` win over
 * the environment (the embedded mode sets database, address and port itself); `values` is the
 * already-loaded configuration of the process when the embedded mode runs the engine.
 */
export function readEngineConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<EngineConfig> = {}, values?: ProcessConfig): EngineConfig {
  const v = values ?? ProcessConfig.load('engine', env);
  // What the embedded mode overrides is not an engine variable there (it has its own BATON_CONSOLE_PORT, BATON_HOST).
  const own = <T>(key: keyof EngineConfig, read: () => T): T => (key in overrides ? (overrides[key] as T) : read());
  return {
    databaseUrl: own('databaseUrl', () => v.string('BATON_DB_URL')),
    nodeId: own('nodeId', () => v.optionalString('BATON_ENGINE_ID') ?? defaultNodeId()),
    groups: v.list('BATON_ENGINE_GROUPS'),
    host: own('host', () => v.string('BATON_ENGINE_HOST')),
    port: own('port', () => v.integer('BATON_ENGINE_PORT')),
    publicUrl: own('publicUrl', () => v.optionalString('BATON_ENGINE_URL') ?? null),
    slots: v.integer('BATON_ENGINE_SLOTS'),
    onTimeSlots: v.integer('BATON_ENGINE_ON_TIME_SLOTS'),
    lookAheadMs: v.integer('BATON_LOOK_AHEAD_MS'),
    sendAheadMs: v.integer('BATON_SEND_AHEAD_MS'),
    claimBatch: v.integer('BATON_CLAIM_BATCH'),
    maxHeld: v.integer('BATON_MAX_HELD'),
    claimIntervalMs: v.integer('BATON_CLAIM_INTERVAL_MS'),
    wakeFloorMs: v.integer('BATON_WAKE_FLOOR_MS'),
    ackHoldMs: v.integer('BATON_ACK_HOLD_MS'),
    tenantRequestsInFlight: v.integer('BATON_TENANT_REQUESTS_IN_FLIGHT'),
    tenantRequestsWaiting: v.integer('BATON_TENANT_REQUESTS_WAITING'),
    tenantRequestRate: v.integer('BATON_TENANT_REQUEST_RATE'),
    tenantRequestBurst: v.integer('BATON_TENANT_REQUEST_BURST'),
    planIntervalMs: v.integer('BATON_PLAN_INTERVAL_MS'),
    planBatch: v.integer('BATON_PLAN_BATCH'),
    leaseMs: v.integer('BATON_LEASE_MS'),
    heartbeatMs: v.integer('BATON_HEARTBEAT_MS'),
    clockSkewAlarmMs: v.integer('BATON_CLOCK_SKEW_ALARM_MS'),
    clockSkewStopMs: v.integer('BATON_CLOCK_SKEW_STOP_MS'),
    engineDeadAfterMs: v.integer('BATON_ENGINE_DEAD_AFTER_MS'),
    livenessPollMs: v.integer('BATON_LIVENESS_POLL_MS'),
    executorDeadAfterMs: v.integer('BATON_EXECUTOR_DEAD_AFTER_MS'),
    executorGraceMs: v.integer('BATON_EXECUTOR_GRACE_MS'),
    watchdogIntervalMs: v.integer('BATON_WATCHDOG_INTERVAL_MS'),
    routing: v.string('BATON_ROUTING') as RoutingKind,
    dispatchTimeoutMs: v.integer('BATON_DISPATCH_TIMEOUT_MS'),
    taskRatePerSec: v.integer('BATON_TASK_RATE'),
    taskBurst: v.integer('BATON_TASK_BURST'),
    retryBudgetPercent: v.integer('BATON_RETRY_BUDGET_PERCENT'),
    retryBudgetPerSec: v.integer('BATON_RETRY_BUDGET_PER_SEC'),
    synchronousDispatch: v.boolean('BATON_SYNCHRONOUS_DISPATCH'),
    brokerUrl: v.optionalString('BATON_BROKER_URL') ?? null,
    clusterAddresses: v.list('BATON_CLUSTER_ADDRESSES'),
    alarmTopicPrefix: v.string('BATON_ALARM_TOPIC_PREFIX'),
    alarmRelayIntervalMs: v.integer('BATON_ALARM_RELAY_INTERVAL_MS'),
    alarmRelayBatch: v.integer('BATON_ALARM_RELAY_BATCH'),
    retention: retentionCeiling(v),
    statsRetentionMs: v.integer('BATON_STATS_RETENTION_MS'),
    auditRetentionMs: v.integer('BATON_AUDIT_RETENTION_MS'),
    historyIntervalMs: v.integer('BATON_HISTORY_INTERVAL_MS'),
    purgeBatch: v.integer('BATON_PURGE_BATCH'),
    loadSampleMs: v.integer('BATON_LOAD_SAMPLE_MS'),
    loadMetricTenants: v.integer('BATON_LOAD_METRIC_TENANTS'),
    metricsToken: v.optionalString('BATON_METRICS_TOKEN') ?? null,
    backlogAlarmMs: v.integer('BATON_BACKLOG_ALARM_MS'),
    ...overrides,
  };
}

/** Injection token of the node's {@link EngineConfig}. */
export const ENGINE_CONFIG = Symbol('baton.engine.config');
