import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { checkTopicPrefix, DEFAULT_ALARM_TOPIC_PREFIX, parseBrokerUrl } from '@baton/messaging';
import type { RoutingKind } from '@baton/scheduling';

/** How one engine node runs. Every field has a default; `readEngineConfig` reads them from the environment. */
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
  /** Runs due within this are claimed ahead into the in-memory queue (`BATON_LOOK_AHEAD_MS`). Default 2000 ms. */
  lookAheadMs: number;
  /** Most runs claimed in one query (`BATON_CLAIM_BATCH`). Default 500. */
  claimBatch: number;
  /** Most runs held in memory at once; claiming pauses above it. Default 20 000. */
  maxHeld: number;
  /** Poll period of the claimer when nothing new was found. Default 200 ms. */
  claimIntervalMs: number;
  /** Poll period of the planner (`BATON_PLAN_INTERVAL_MS`). Default 500 ms. */
  planIntervalMs: number;
  /** Most tasks claimed by the planner in one query. Default 200. */
  planBatch: number;
  /** Lease on a claimed run; renewed while held (`BATON_LEASE_MS`). Default 15 000 ms. */
  leaseMs: number;
  /** Heartbeat period of this node (`BATON_HEARTBEAT_MS`). Default 2000 ms. */
  heartbeatMs: number;
  /** A node silent for this long is dead; its leases are taken over (`BATON_ENGINE_DEAD_AFTER_MS`). Default 8000 ms. */
  engineDeadAfterMs: number;
  /** An executor silent for this long is DOWN (`BATON_EXECUTOR_DEAD_AFTER_MS`). Default 10 000 ms. */
  executorDeadAfterMs: number;
  /** Accepted runs of a DOWN executor are reconciled after this grace. Default 30 000 ms. */
  executorGraceMs: number;
  /** Watchdog period. Default 500 ms. */
  watchdogIntervalMs: number;
  /** Executor routing (`BATON_ROUTING`): ROUND_ROBIN, LEAST_BUSY, CONSISTENT_HASH, FAILOVER. Default LEAST_BUSY. */
  routing: RoutingKind;
  /** Timeout of one dispatch POST, send to ack (`BATON_DISPATCH_TIMEOUT_MS`). Default 5000 ms. */
  dispatchTimeoutMs: number;
  /** Per task-queue token bucket: runs per second (`BATON_TASK_RATE`). Default 500. */
  taskRatePerSec: number;
  /** Per task-queue token bucket: burst. Default 1000. */
  taskBurst: number;
  /** Bench only: hold the slot until the run ends (the synchronous dispatch of the MTHPT paper's baseline). Default false. */
  synchronousDispatch: boolean;
  /**
   * ActiveMQ STOMP broker(s) the alarm relay publishes to (`BATON_BROKER_URL`): `stomp://host:61613`,
   * a comma-separated failover list, or `failover:(…)`. Null (default): the in-process alarm bus
   * (embedded mode, where the console shares the process).
   */
  brokerUrl: string | null;
  /** Alarms of tenant T go to the topic `<prefix>T` (`BATON_ALARM_TOPIC_PREFIX`). Default `baton.alarms.`. */
  alarmTopicPrefix: string;
  /** Poll period of the alarm relay when no local alarm woke it (`BATON_ALARM_RELAY_INTERVAL_MS`). Default 250 ms. */
  alarmRelayIntervalMs: number;
  /** Most alarms of one tenant published per relay transaction (`BATON_ALARM_RELAY_BATCH`). Default 200. */
  alarmRelayBatch: number;
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer (got "${raw}")`);
  return value;
}

export function defaultNodeId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

/** Reads the engine configuration from the environment, failing with the variable's name on bad input. */
export function readEngineConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<EngineConfig> = {}): EngineConfig {
  const routing = (env.BATON_ROUTING ?? 'LEAST_BUSY') as RoutingKind;
  if (!['ROUND_ROBIN', 'LEAST_BUSY', 'CONSISTENT_HASH', 'FAILOVER'].includes(routing)) {
    throw new Error(`BATON_ROUTING must be ROUND_ROBIN, LEAST_BUSY, CONSISTENT_HASH or FAILOVER (got "${routing}")`);
  }
  const config: EngineConfig = {
    databaseUrl: env.BATON_DB_URL ?? 'sqlite:./data/baton.sqlite',
    nodeId: env.BATON_ENGINE_ID ?? defaultNodeId(),
    groups: (env.BATON_ENGINE_GROUPS ?? 'default').split(',').map((g) => g.trim()).filter(Boolean),
    host: env.BATON_ENGINE_HOST ?? '127.0.0.1',
    port: int(env, 'BATON_ENGINE_PORT', 8090),
    publicUrl: env.BATON_ENGINE_URL ?? null,
    slots: int(env, 'BATON_ENGINE_SLOTS', 64),
    lookAheadMs: int(env, 'BATON_LOOK_AHEAD_MS', 2000),
    claimBatch: int(env, 'BATON_CLAIM_BATCH', 500),
    maxHeld: int(env, 'BATON_MAX_HELD', 20_000),
    claimIntervalMs: int(env, 'BATON_CLAIM_INTERVAL_MS', 200),
    planIntervalMs: int(env, 'BATON_PLAN_INTERVAL_MS', 500),
    planBatch: int(env, 'BATON_PLAN_BATCH', 200),
    leaseMs: int(env, 'BATON_LEASE_MS', 15_000),
    heartbeatMs: int(env, 'BATON_HEARTBEAT_MS', 2000),
    engineDeadAfterMs: int(env, 'BATON_ENGINE_DEAD_AFTER_MS', 8000),
    executorDeadAfterMs: int(env, 'BATON_EXECUTOR_DEAD_AFTER_MS', 10_000),
    executorGraceMs: int(env, 'BATON_EXECUTOR_GRACE_MS', 30_000),
    watchdogIntervalMs: int(env, 'BATON_WATCHDOG_INTERVAL_MS', 500),
    routing,
    dispatchTimeoutMs: int(env, 'BATON_DISPATCH_TIMEOUT_MS', 5000),
    taskRatePerSec: int(env, 'BATON_TASK_RATE', 500),
    taskBurst: int(env, 'BATON_TASK_BURST', 1000),
    synchronousDispatch: env.BATON_SYNCHRONOUS_DISPATCH === '1',
    brokerUrl: env.BATON_BROKER_URL?.trim() || null,
    alarmTopicPrefix: env.BATON_ALARM_TOPIC_PREFIX?.trim() || DEFAULT_ALARM_TOPIC_PREFIX,
    alarmRelayIntervalMs: int(env, 'BATON_ALARM_RELAY_INTERVAL_MS', 250),
    alarmRelayBatch: int(env, 'BATON_ALARM_RELAY_BATCH', 200),
    ...overrides,
  };
  if (config.groups.length === 0) throw new Error('BATON_ENGINE_GROUPS must name at least one engine group');
  if (config.slots < 1) throw new Error('BATON_ENGINE_SLOTS must be at least 1');
  if (config.alarmRelayBatch < 1) throw new Error('BATON_ALARM_RELAY_BATCH must be at least 1');
  try {
    checkTopicPrefix(config.alarmTopicPrefix);
    if (config.brokerUrl) parseBrokerUrl(config.brokerUrl);
  } catch (err) {
    throw new Error(`${/prefix/.test((err as Error).message) ? 'BATON_ALARM_TOPIC_PREFIX' : 'BATON_BROKER_URL'}: ${(err as Error).message}`);
  }
  return config;
}

/** Injection token of the node's {@link EngineConfig}. */
export const ENGINE_CONFIG = Symbol('baton.engine.config');
